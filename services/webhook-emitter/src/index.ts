export { webhookEmitterService } from './service.js';
