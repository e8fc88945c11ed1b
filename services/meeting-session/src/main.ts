import { runStandalone } from '@notetaker/kit';
import { meetingSessionService } from './service.js';

await runStandalone(meetingSessionService());
