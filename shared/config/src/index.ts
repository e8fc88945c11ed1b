export * from './config.js';
export * from './env-fields.js';
