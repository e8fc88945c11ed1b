import { runStandalone } from '@notetaker/kit';
import { projectCatalogService } from './service.js';

await runStandalone(projectCatalogService());
