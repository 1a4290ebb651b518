export * from './common.js';
export * from './sessions.js';
export * from './meta.js';
export * from './billing.js';
