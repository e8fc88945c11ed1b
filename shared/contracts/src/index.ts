export * from './errors.js';
export * from './subjects.js';
export * from './rest.js';
export * from './events.js';
export * from './identity.js';
export * from './messages.js';
export * from './routes.js';
