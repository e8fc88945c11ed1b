export { meetingSessionService } from './service.js';
export type { MeetingSessionOptions, RunningMeetingSession } from './service.js';
export { parseMeetingUrl, type ParsedMeetingUrl } from './meeting-url.js';
export type * from './drivers/driver.js';
