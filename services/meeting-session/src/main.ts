import { runStandalone } from '@notetaker/service-runtime';
import { meetingSessionService } from './service.js';

await runStandalone(meetingSessionService());
