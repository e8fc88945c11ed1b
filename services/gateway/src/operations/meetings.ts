/** SPEC 4.1 start, stop and status, answered by meeting-session (routes.meetings). */
import { z } from 'zod';
import { call } from '@notetaker/bus';
import {
  meetingStatusResponse,
  routes,
  startMeetingRequest,
  startMeetingResponse,
  stopMeetingRequest,
  stopMeetingResponse,
} from '@notetaker/contracts';
import { operation } from './operation.js';

/** A start reserves a document, registers the callback and launches a bot: allow it time. */
const START_TIMEOUT_MS = 30_000;

/** Operations that take no arguments: anything else is an unknown field. */
export const noInput = z.strictObject({});

export const startMeeting = operation({
  input: startMeetingRequest,
  output: startMeetingResponse,
  run: (bus, caller, body) =>
    call(
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
        coach: body.coach ?? null,
      },
      { timeoutMs: START_TIMEOUT_MS },
    ),
});

export const stopMeeting = operation({
  input: stopMeetingRequest,
  output: stopMeetingResponse,
  run: (bus, caller, { meetingId }) => call(bus, routes.meetings.stop, { caller, meetingId }),
});

export const listMeetings = operation({
  input: noInput,
  output: meetingStatusResponse,
  run: (bus, caller) => call(bus, routes.meetings.status, { caller }),
});
