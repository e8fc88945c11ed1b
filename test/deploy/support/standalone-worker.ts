/**
 * A meeting-session process as its container runs it: `runStandalone` (ops endpoints, the service
 * runtime's SIGTERM path into the worker's stop) with the environment the test gives, and the scripted
 * platform in place of Chromium (bots are admitted at once; nobody speaks). Its JSON log lines on
 * stdout are the facts a test reads (services/meeting-session/test/support/child.ts).
 */
import { runStandalone } from '@notetaker/service-runtime';
import { meetingSessionService } from '../../../services/meeting-session/src/service.js';
import { scriptedDriverFactory } from '../../support/scripted-driver.js';

await runStandalone(meetingSessionService({ driverFactory: scriptedDriverFactory() }));
