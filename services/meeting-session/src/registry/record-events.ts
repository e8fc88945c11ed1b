/**
 * svc.meetings.record: a worker hands over the events its actors emitted since its last request,
 * for any number of its meetings at once. They are stored in the event log (one write for the
 * whole request), then each meeting's record is brought up to date; the worker
 * publishes a meeting's events only after this answers. A meeting that has ended, or that another
 * worker now owns, is refused and named in `fenced` (fencing a worker that was declared lost but
 * is still running); the others are stored all the same.
 */
import { z } from 'zod';
import { eventEnvelope, isTerminalStatus, TERMINAL_STATUSES } from '@notetaker/contracts';
import {
  recordingKey,
  type ActorState,
  type MeetingEvents,
  type RecordReply,
  type RecordRequest,
} from '../protocol.js';
import type { EventLog } from './event-log.js';
import type { MeetingDoc, Records } from './records.js';
import type { DeferredCounts } from './deferred-counts.js';

export interface RecordDeps {
  records: Records;
  log: EventLog;
  counts: DeferredCounts;
}

/** `request` is parsed already (answer() of the record route): the one parse of a batch. */
export async function recordEvents(deps: RecordDeps, request: RecordRequest): Promise<RecordReply> {
  const { records, log } = deps;
  const docs = await records.meetings.find({ _id: { $in: request.meetings.map((m) => m.meetingId) } });
  const byId = new Map(docs.map((doc) => [doc._id, doc]));
  const fenced: string[] = [];
  const writable: Array<{ doc: MeetingDoc; batch: MeetingEvents }> = [];
  for (const batch of request.meetings) {
    const doc = byId.get(batch.meetingId);
    const ours = doc && !isTerminalStatus(doc.status) && (doc.workerId === null || doc.workerId === request.workerId);
    if (ours) writable.push({ doc, batch });
    else fenced.push(batch.meetingId);
  }
  const appended = await log.appendAll(writable.map((w) => w.batch));
  for (const [i, { doc, batch }] of writable.entries()) {
    if (appended[i]) await applyToRecord(deps, doc, request.workerId, batch);
    else fenced.push(batch.meetingId);
  }
  return { fenced };
}

/**
 * Brings the meeting's record up to date with its stream; an ending stream frees the URL. A change
 * of the counts alone is written in the background (deferred-counts.ts); a change of status or
 * worker is written before the reply, so whoever saw the event reads the same status.
 */
async function applyToRecord(
  { records, log, counts }: RecordDeps,
  doc: MeetingDoc,
  workerId: string,
  batch: MeetingEvents,
) {
  const { state } = batch;
  if (!state) return; // unchanged since the worker's last request
  const last = isTerminalStatus(state.status) ? lastStatusEvent(batch) : null;
  const ending = last !== null;
  if (!ending && !changed(doc, workerId, state)) return;
  const { participantCount, segmentCount, participants, recording } = state;
  const unknown = state.unknownSpeakerSegments ?? 0;
  const transcription = {
    mode: doc.transcription?.mode ?? 'captions',
    source: state.transcriptionSource,
    ...(unknown > 0 ? { unknownSpeakerSegments: unknown } : {}),
  };
  if (!ending && doc.status === state.status && doc.workerId === workerId && !sourceChanged(doc, state)) {
    counts.defer(doc._id, batch.last, { participantCount, segmentCount, participants, recording, transcription });
    return;
  }
  counts.drop(doc._id);
  const $set: Partial<MeetingDoc> = {
    status: state.status,
    participantCount,
    segmentCount,
    participants,
    recording,
    transcription,
    workerId,
    projectedThrough: batch.last,
  };
  if (ending) {
    $set.reason = typeof last.payload.reason === 'string' ? last.payload.reason : null;
    $set.endedAt = last.timestamp;
  }
  const result = await records.meetings.updateOne({ _id: doc._id, status: { $nin: [...TERMINAL_STATUSES] } }, { $set });
  if (ending && result.matchedCount > 0) await records.release(doc.identityKey, doc._id);
  if (ending) log.forget(doc._id);
}

/** The batch's last status change, read only from the batch that ends the meeting. */
function lastStatusEvent(batch: MeetingEvents) {
  const events = z.array(eventEnvelope).parse(JSON.parse(batch.events));
  for (let i = events.length - 1; i >= 0; i--) if (events[i].type === 'meeting_status') return events[i];
  return null;
}

/** What differs between the record and the actor's state (the worker's state key holds the same fields). */
function changed(doc: MeetingDoc, workerId: string, state: ActorState): boolean {
  return (
    doc.workerId !== workerId ||
    doc.status !== state.status ||
    doc.participantCount !== state.participantCount ||
    doc.segmentCount !== state.segmentCount ||
    doc.participants.length !== state.participants.length ||
    recordingKey(doc.recording) !== recordingKey(state.recording) ||
    (doc.transcription?.unknownSpeakerSegments ?? 0) !== (state.unknownSpeakerSegments ?? 0) ||
    sourceChanged(doc, state)
  );
}

/** A change of source is written at once, like a status: the operator looks for it right after the warning. */
const sourceChanged = (doc: MeetingDoc, state: ActorState) =>
  (doc.transcription?.source ?? null) !== state.transcriptionSource;
