/** SPEC 4.1 start, stop and status, answered by meeting-session (routes.meetings). */
import { z } from 'zod';
import { call, type Bus } from '@notetaker/bus';
import {
  meetingStatusResponse,
  routes,
  startMeetingRequest,
  startMeetingResponse,
  stopMeetingRequest,
  stopMeetingResponse,
  type Caller,
} from '@notetaker/contracts';
import { count, defineOperation, NOT_OWNED, READ } from './operation.js';

/** A start reserves a document, registers the callback and launches a bot: allow it time. */
const START_TIMEOUT_MS = 30_000;

/** Operations that take no arguments: anything else is an unknown field. */
export const noInput = z.strictObject({});

/** A start's arguments: REST's and the tool's body, or the web form's, which has no callback (null). */
export type StartArguments = Omit<z.infer<typeof startMeetingRequest>, 'callbackUrl'> & { callbackUrl: string | null };

/** The start's handler, with its defaults: REST, MCP and the web form all start through it. */
export function start(bus: Bus, caller: Caller, body: StartArguments) {
  return call(
    bus,
    routes.meetings.start,
    {
      caller,
      url: body.url,
      title: body.title ?? null,
      callbackUrl: body.callbackUrl,
      project: body.project ?? 'api',
      saveTranscript: body.saveTranscript ?? true,
      signIn: body.signIn ?? 'auto',
      language: body.language ?? null,
      passcode: body.passcode ?? null,
      coach: body.coach ?? null,
      // Null: the installation's default (RECORDING_DEFAULT).
      recording: body.recording ?? null,
      transcription: body.transcription ?? null,
    },
    { timeoutMs: START_TIMEOUT_MS },
  );
}

export const startMeeting = defineOperation({
  name: 'start_meeting',
  input: startMeetingRequest,
  output: startMeetingResponse,
  needs: 'knowledge:write',
  rest: {
    method: 'post',
    path: '/meetings/start',
    status: 201,
    tag: 'meetings',
    summary: 'Send a bot into a Google Meet, Teams or Zoom meeting; events go to callbackUrl, signed',
    description: 'The bot is joining',
    errors: {
      403: 'saveTranscript without the knowledge:write capability',
      409: 'Meeting URL is already being transcribed; or signIn always with no usable bot account of the platform',
      413: 'Body over 1 MB',
      503: 'A service is unavailable, or every bot seat or (signIn always) bot account is busy, or no bot has a browser (then with Retry-After)',
    },
  },
  tool: {
    title: 'Start transcribing a meeting',
    description:
      'Sends the notetaker bot into a Google Meet, Teams or Zoom meeting to transcribe it. Returns the meetingId; ' +
      'follow it with get_transcript or by subscribing to notetaker://meetings/{meetingId}/transcript.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    text: (b) => `Meeting ${b.meetingId} is ${b.status} on ${b.platform} (project ${b.project}).`,
  },
  handler: start,
});

export const stopMeeting = defineOperation({
  name: 'stop_meeting',
  input: stopMeetingRequest,
  output: stopMeetingResponse,
  rest: {
    method: 'post',
    path: '/meetings/stop',
    status: 200,
    tag: 'meetings',
    summary: 'Make the bot leave; the final document and status follow as events',
    description: 'The bot is leaving',
    errors: { 404: NOT_OWNED, 409: 'Meeting has ended', 413: 'Body over 1 MB' },
  },
  tool: {
    title: 'Stop transcribing a meeting',
    description: 'Makes the bot leave a live meeting this API key started; the transcript stays readable.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    text: (b) => `Meeting ${b.meetingId} is ${b.status}.`,
  },
  handler: (bus, caller, { meetingId }) => call(bus, routes.meetings.stop, { caller, meetingId }),
});

export const listMeetings = defineOperation({
  name: 'list_meetings',
  input: noInput,
  output: meetingStatusResponse,
  rest: {
    method: 'get',
    path: '/meetings/status',
    status: 200,
    tag: 'meetings',
    summary: 'Meetings of this key being transcribed now',
    description: 'Live meetings',
  },
  tool: {
    title: 'List live meetings',
    description: 'The meetings this API key started that are being transcribed now.',
    annotations: READ,
    text: (b) =>
      `${count(b.meetings.length, 'live meeting')}${b.meetings.map((m) => `\n- ${m.meetingId} ${m.status} "${m.title ?? ''}"`).join('')}`,
  },
  handler: (bus, caller) => call(bus, routes.meetings.status, { caller }),
});
