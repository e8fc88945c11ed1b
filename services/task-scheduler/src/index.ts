export { taskSchedulerService, type TaskSchedulerOptions } from './service.js';
