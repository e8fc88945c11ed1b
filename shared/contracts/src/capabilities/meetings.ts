/**
 * The capabilities of meeting-session: start, stop and list live meetings (answered by its
 * registry on `routes.meetings`), and a meeting's events (its event log, read by the gateway
 * after the owner check).
 */
import { z } from 'zod';
import { count, defineCapability, DESTRUCTIVE, READ } from '../capability.js';
import {
  callbackUrl,
  eventsRequest,
  eventsResponse,
  meetingStatusResponse,
  meetingTitle,
  startMeetingRequest,
  startMeetingResponse,
  stopMeetingRequest,
  stopMeetingResponse,
} from '../rest.js';

/** The 404 of every meeting-owned capability: another key's meeting is not told apart from none. */
export const NOT_OWNED = 'Not found: no such meeting, or another key’s';
/** The 413 of every capability with a JSON body. */
export const BODY_TOO_LARGE = 'Body over 1 MB';

/** Capabilities that take no arguments: anything else is an unknown field. */
export const noInput = z.strictObject({});

export const startMeeting = defineCapability({
  name: 'start_meeting',
  bus: {
    service: 'meetings',
    verb: 'start',
    scope: 'caller',
    // The web's start belongs to no key: no callback, and maybe no title.
    fields: { title: meetingTitle.nullable().optional(), callbackUrl: callbackUrl.nullable() },
    // A start reserves a document, registers the callback and launches a bot: allow it time.
    timeoutMs: 30_000,
  },
  input: startMeetingRequest,
  output: startMeetingResponse,
  needs: 'knowledge:write',
  errors: {
    403: 'saveTranscript without the knowledge:write capability',
    409: 'Meeting URL is already being transcribed; or signIn always with no usable bot account of the platform',
    413: BODY_TOO_LARGE,
    503: 'A service is unavailable, or every bot seat or (signIn always) bot account is busy, or no bot has a browser (then with Retry-After)',
  },
  rest: {
    method: 'post',
    path: '/meetings/start',
    status: 201,
    summary: 'Send a bot into a Google Meet, Teams or Zoom meeting; events go to callbackUrl, signed',
    description: 'The bot is joining',
  },
  tool: {
    title: 'Start transcribing a meeting',
    description:
      'Sends the notetaker bot into a Google Meet, Teams or Zoom meeting to transcribe it. Returns the meetingId; ' +
      'follow it with get_transcript or by subscribing to notetaker://meetings/{meetingId}/transcript.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    text: (b) => `Meeting ${b.meetingId} is ${b.status} on ${b.platform} (project ${b.project}).`,
  },
});

export const stopMeeting = defineCapability({
  name: 'stop_meeting',
  bus: { service: 'meetings', verb: 'stop', scope: 'caller' },
  input: stopMeetingRequest,
  output: stopMeetingResponse,
  errors: { 404: NOT_OWNED, 409: 'Meeting has ended', 413: BODY_TOO_LARGE },
  rest: {
    method: 'post',
    path: '/meetings/stop',
    summary: 'Make the bot leave; the final document and status follow as events',
    description: 'The bot is leaving',
  },
  tool: {
    title: 'Stop transcribing a meeting',
    description: 'Makes the bot leave a live meeting this API key started; the transcript stays readable.',
    annotations: { ...DESTRUCTIVE, openWorldHint: true },
    text: (b) => `Meeting ${b.meetingId} is ${b.status}.`,
  },
});

export const listMeetings = defineCapability({
  name: 'list_meetings',
  bus: { service: 'meetings', verb: 'status', scope: 'caller' },
  input: noInput,
  output: meetingStatusResponse,
  rest: {
    method: 'get',
    path: '/meetings/status',
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
});

/** Composed by the gateway: the owner check, then the event log read on until the page is full. */
export const getEvents = defineCapability({
  name: 'get_events',
  input: eventsRequest,
  output: eventsResponse,
  errors: { 404: NOT_OWNED },
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/events',
    summary: 'The events of a meeting after a sequence, each as its callback carried it: catch up on what was missed',
    description: 'Events in sequence order',
  },
  tool: {
    title: "Read a meeting's events",
    description:
      'The events of a meeting this API key started, in sequence order, each exactly as its callback carried ' +
      'it: statuses, captions in progress, finalized segments, participants, coaching, the saved document. ' +
      'Pass the nextAfter of one answer as `after` to read on; once a page is empty and `ended` is true, ' +
      'every event has been read.',
    annotations: READ,
    text: (b) =>
      `Meeting ${b.meetingId}: ${count(b.events.length, 'event')}, nextAfter ${b.nextAfter}` +
      `${b.ended ? ', the meeting has ended' : ''}` +
      b.events.map((e) => `\n#${e.sequence} ${e.type}`).join(''),
  },
});

export const MEETING_CAPABILITIES = [startMeeting, stopMeeting, listMeetings, getEvents] as const;
