import { runStandalone } from '@notetaker/service-runtime';
import { webhookEmitterService } from './service.js';

await runStandalone(webhookEmitterService());
