export * from './ids.js';
export * from './common.js';
export * from './email.js';
export * from './api-key.js';
export * from './webhook.js';
export * from './events.js';
