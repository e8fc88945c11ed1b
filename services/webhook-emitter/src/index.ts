export { webhookEmitterService, type WebhookEmitterOptions } from './service.js';
