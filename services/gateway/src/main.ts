import { runStandalone } from '@notetaker/service-runtime';
import { gatewayService } from './service.js';

await runStandalone(gatewayService());
