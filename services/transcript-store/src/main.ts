import { runStandalone } from '@notetaker/kit';
import { transcriptStoreService } from './service.js';

await runStandalone(transcriptStoreService());
