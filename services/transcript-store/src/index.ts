export { transcriptStoreService } from './service.js';
