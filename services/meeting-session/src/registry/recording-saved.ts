/**
 * A meeting's recording finished after its meeting ended: the worker's spool drained once storage
 * answered again, a restarted worker sent what a dead one had spooled, or the lease sweep finished
 * the file of a worker that is gone. The registry writes it on the record (the status and the
 * record show it) and appends `recording_saved` after the meeting's last event, since the worker's
 * outbox no longer writes the stream of a meeting that has ended. Exactly once: whoever moves the
 * record's recording from `recording` to its final state appends the event.
 */
import {
  evtMeeting,
  recordingSavedPayload,
  RECORDING_STATES,
  routes,
  TERMINAL_STATUSES,
  type EventEnvelope,
  type RecordingInfo,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { RecordingSavedRequest } from '../protocol.js';
import type { EventLog } from './event-log.js';
import type { MeetingDoc, Records } from './records.js';

const FINAL_STATES = RECORDING_STATES.filter((s) => s !== 'recording');

export interface RecordingSavedDeps {
  bus: Bus;
  records: Records;
  log: EventLog;
  logger: Logger;
}

/**
 * Records a finished recording on an ended meeting and appends its event; null when the meeting
 * is still live (its end says it) or another party recorded it first.
 */
export async function noteRecordingSaved(
  deps: Pick<RecordingSavedDeps, 'records' | 'log'>,
  meetingId: string,
  recording: RecordingInfo,
): Promise<EventEnvelope | null> {
  const won = await deps.records.meetings.findOneAndUpdate(
    { _id: meetingId, status: { $in: [...TERMINAL_STATUSES] }, 'recording.status': { $nin: FINAL_STATES } },
    { $set: { recording } },
  );
  if (!won) return null;
  return deps.log.appendNext(meetingId, 'recording_saved', recordingSavedPayload(recording));
}

/** svc.meetings.recording-saved: a worker's late recording, published once stored. */
export async function recordingSaved(
  deps: RecordingSavedDeps,
  request: RecordingSavedRequest,
): Promise<Record<string, never>> {
  const event = await noteRecordingSaved(deps, request.meetingId, request.recording);
  if (event) deps.bus.publish(evtMeeting(request.meetingId, event.type), event);
  return {};
}

/**
 * Finishes the file of a meeting whose worker is gone (svc.transcripts.recording-finish): what
 * storage lacks of the meeting up to its end becomes a `worker_lost` gap. Null when there is no
 * recording, or storage did not answer (the next sweep asks again).
 */
export async function finishLostRecording(
  deps: Pick<RecordingSavedDeps, 'bus' | 'logger'>,
  doc: Pick<MeetingDoc, '_id' | 'recording' | 'endedAt'>,
): Promise<RecordingInfo | null | 'unanswered'> {
  const endedAt = doc.endedAt ? Date.parse(doc.endedAt) : Date.now();
  const startedAt = doc.recording ? Date.parse(doc.recording.startedAt) : NaN;
  const lostAt = Number.isFinite(startedAt) ? { lostAtMs: Math.max(0, Math.round(endedAt - startedAt)) } : {};
  try {
    return await call(deps.bus, routes.recordings.finish, { meetingId: doc._id, ...lostAt });
  } catch (err) {
    deps.logger.warn({ err, meetingId: doc._id }, 'could not finish the recording of a lost meeting');
    return 'unanswered';
  }
}
