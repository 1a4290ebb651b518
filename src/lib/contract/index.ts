export * from './common.js';
export * from './sessions.js';
export * from './payments.js';
export * from './meta.js';
