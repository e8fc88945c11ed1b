export { meetingSessionService } from './service.js';
