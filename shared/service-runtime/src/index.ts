export * from './service.js';
export * from './shutdown.js';
