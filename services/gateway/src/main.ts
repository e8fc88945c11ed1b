import { runStandalone } from '@notetaker/kit';
import { gatewayService } from './service.js';

await runStandalone(gatewayService());
