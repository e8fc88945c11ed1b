/**
 * Meetings: start, stop and status, declared in the contracts (capabilities/meetings.ts) and
 * answered by meeting-session on their routes.
 */
import { call, type Bus } from '@notetaker/bus';
import {
  listMeetings as listMeetingsCapability,
  startMeeting as startMeetingCapability,
  stopMeeting as stopMeetingCapability,
  type Caller,
  type RequestOf,
} from '@notetaker/contracts';
import { forwarded } from './operation.js';

export { noInput } from '@notetaker/contracts';

export const startMeeting = forwarded(startMeetingCapability);
export const stopMeeting = forwarded(stopMeetingCapability);
export const listMeetings = forwarded(listMeetingsCapability);

/** A start's arguments on the bus: REST's and the tool's, or the web form's (no callback: null). */
export type StartArguments = Omit<RequestOf<typeof startMeetingCapability.route>, 'caller'>;

/** A start from the web form, which has no callback: start_meeting's route, its defaults and its time. */
export function start(bus: Bus, caller: Caller, body: StartArguments) {
  return call(
    bus,
    startMeetingCapability.route,
    { ...body, caller },
    { timeoutMs: startMeetingCapability.bus.timeoutMs },
  );
}
