/**
 * get_events (capabilities/meetings.ts): a meeting's events after a sequence, each the envelope its
 * callback carried: how a receiver that was down, or a client that reconnects, catches up.
 * Ownership is the transcript's (`ownedMeeting`: 404 `Not found` for unknown and foreign meetings
 * alike); the events are meeting-session's log, read on until the page is full. `ended` promises
 * that nothing more will come: a recording still being stored after the meeting's end will add its
 * `recording_saved`.
 */
import { call, type Bus } from '@notetaker/bus';
import {
  getEvents as getEventsCapability,
  isFinalStatusEvent,
  MAX_EVENTS_LIMIT,
  routes,
  type EventEnvelope,
  type MeetingRecord,
} from '@notetaker/contracts';
import { composed } from './operation.js';
import { ownedMeeting } from './transcripts.js';

/**
 * Reads of the log per request, at most: 1000 events each, so a filter scans up to a million events
 * (far beyond a meeting) before answering with what it found; a bound keeps a bug from looping.
 */
const MAX_READS = 1000;

export const getEvents = composed(getEventsCapability, async (bus, caller, { meetingId, after, limit, types }) => {
  // The record is read before the log, so `ended` never claims more than the log then held.
  const meeting = await ownedMeeting(bus, caller, meetingId);
  const wanted = types ? new Set<string>(types) : null;
  const events: EventEnvelope[] = [];
  let last: EventEnvelope | undefined; // the last event looked at
  let atEnd = false;
  // A reply may hold fewer events than asked (it stays under NATS' message limit): read on until
  // `limit` events are kept or the log has nothing more.
  for (let reads = 0; events.length < limit && reads < MAX_READS; reads++) {
    const page = await call(bus, routes.meetings.events, {
      meetingId: meeting.meetingId,
      afterSequence: last?.sequence ?? after,
      limit: wanted ? MAX_EVENTS_LIMIT : limit - events.length,
    });
    if (page.events.length === 0) {
      atEnd = true;
      break;
    }
    for (const event of page.events) {
      last = event; // skipped ones too: nextAfter passes them, so the next request does not scan them again
      if (wanted && !wanted.has(event.type)) continue;
      events.push(event);
      if (events.length === limit) break;
    }
  }
  const over = meeting.status === 'ended' || meeting.status === 'error';
  return {
    meetingId: meeting.meetingId,
    events,
    nextAfter: last?.sequence ?? after,
    ended: over && (!atEnd || (await logComplete(bus, meeting, last?.sequence ?? after))),
  };
});

const isFinal = (event: EventEnvelope | undefined) => event !== undefined && isFinalStatusEvent(event);

/**
 * Whether the log, read to its end (its last event `end`), holds every event the meeting will
 * have. Normally it does once the record says ended and the final status is in. But a meeting
 * whose worker was lost is ended on its record first and gets its last events (document_saved,
 * the error status) after a final flush; and when storage was slow, a recorded meeting's
 * `recording_saved` comes after its final status, once the worker has sent what it spooled:
 * while transcript-store still says `recording`, there is more to read, and an empty page must
 * not say `ended`. A last `recording_saved` right after the final status is that late one.
 */
async function logComplete(bus: Bus, meeting: MeetingRecord, end: number): Promise<boolean> {
  // No event at all: the log was dropped (retention) long after the meeting ended.
  if (end === 0) return true;
  const { events } = await call(bus, routes.meetings.events, {
    meetingId: meeting.meetingId,
    afterSequence: Math.max(0, end - 2),
    limit: 2,
  });
  const [before, last] = events.length === 2 ? events : [undefined, events[0]];
  if (!last) return true;
  if (last.type === 'recording_saved') return isFinal(before);
  if (!isFinal(last)) return false;
  const recording = await call(bus, routes.recordings.get, { meetingId: meeting.meetingId });
  return recording?.status !== 'recording';
}
