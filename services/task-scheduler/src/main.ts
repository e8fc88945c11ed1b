import { runStandalone } from '@notetaker/kit';
import { taskSchedulerService } from './service.js';

await runStandalone(taskSchedulerService());
