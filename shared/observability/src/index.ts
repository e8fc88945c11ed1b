export * from './logger.js';
export * from './ops.js';
