export * from './config.js';
export * from './env-fields.js';
export * from './fast-histogram.js';
export * from './group-commit.js';
export * from './logger.js';
export * from './ops.js';
export * from './service.js';
export * from './shutdown.js';
