import { runStandalone } from '@notetaker/kit';
import { webhookEmitterService } from './service.js';

await runStandalone(webhookEmitterService());
