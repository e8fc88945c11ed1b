export { transcriptStoreService, type RunningTranscriptStore } from './service.js';
