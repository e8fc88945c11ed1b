export { projectCatalogService } from './service.js';
