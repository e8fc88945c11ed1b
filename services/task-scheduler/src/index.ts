export { taskSchedulerService } from './service.js';
