import { runStandalone } from '@notetaker/service-runtime';
import { transcriptStoreService } from './service.js';

await runStandalone(transcriptStoreService());
