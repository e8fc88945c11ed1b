export { projectCatalogService, DOCS_DIR } from './service.js';
