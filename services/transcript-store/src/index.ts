export { transcriptStoreService, type RunningTranscriptStore, type TranscriptStoreOptions } from './service.js';
