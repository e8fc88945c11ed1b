import { runStandalone } from '@notetaker/service-runtime';
import { projectCatalogService } from './service.js';

await runStandalone(projectCatalogService());
