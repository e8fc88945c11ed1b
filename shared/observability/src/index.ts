export * from './logger.js';
export * from './ops.js';
export * from './redact.js';
