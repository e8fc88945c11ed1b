/**
 * Every capability of the API, each declared in the contract module of the service that owns it,
 * in the order the OpenAPI document and tools/list show them. A capability added to its module's
 * list is served by REST and MCP and documented, with no other list to extend.
 */
import { CALENDAR_CAPABILITIES } from './calendars.js';
import { DELIVERY_CAPABILITIES } from './deliveries.js';
import { MEETING_CAPABILITIES } from './meetings.js';
import { PROJECT_CAPABILITIES } from './projects.js';
import { RECORDING_CAPABILITIES } from './recordings.js';
import { TASK_CAPABILITIES } from './tasks.js';
import { TRANSCRIPT_CAPABILITIES } from './transcripts.js';
import { CHAT_CAPABILITIES } from './chat.js';
import { SPEECH_CAPABILITIES } from './speech.js';
import type { ApiCapability } from '../capability.js';

export * from './calendars.js';
export * from './deliveries.js';
export * from './meetings.js';
export * from './projects.js';
export * from './recordings.js';
export * from './tasks.js';
export * from './transcripts.js';
export * from './chat.js';
export * from './speech.js';

export const API_CAPABILITIES: readonly ApiCapability[] = [
  ...MEETING_CAPABILITIES,
  ...TRANSCRIPT_CAPABILITIES,
  ...RECORDING_CAPABILITIES,
  ...DELIVERY_CAPABILITIES,
  ...PROJECT_CAPABILITIES,
  ...TASK_CAPABILITIES,
  ...CALENDAR_CAPABILITIES,
  ...CHAT_CAPABILITIES,
  ...SPEECH_CAPABILITIES,
];
