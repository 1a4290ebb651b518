export * from './common.js';
export * from './sessions.js';
export * from './payments.js';
export * from './meta.js';
export * from './ledger.js';
export * from './identity.js';
export * from './billing.js';
export * from './webhooks.js';
