/**
 * svc.meetings.record: a worker's actor hands over a batch of its events. They are stored in the
 * event log, then the meeting's record is brought up to date; the actor publishes them only after
 * this answers. A meeting that has ended, or that another worker now owns, refuses the write
 * (fencing a worker that was declared lost but is still running).
 */
import { ServiceError, type EventEnvelope } from '@notetaker/contracts';
import { FENCED_CODE, recordRequest, type RecordReply } from '../protocol.js';
import type { EventLog } from './event-log.js';
import { parseRequest } from '../parse.js';
import { isTerminal, type MeetingDoc, type Records } from './records.js';

const fenced = () => new ServiceError(FENCED_CODE, 'Meeting is closed for this worker', 409);

export async function recordEvents(records: Records, log: EventLog, data: unknown): Promise<RecordReply> {
  const request = parseRequest(recordRequest, data);
  const doc = await records.meetings.findOne({ _id: request.meetingId });
  if (!doc || isTerminal(doc.status) || (doc.workerId !== null && doc.workerId !== request.workerId)) throw fenced();
  if (request.events.some((e) => e.meetingId !== request.meetingId)) throw fenced();
  if (!(await log.append(request.events))) throw fenced();
  const { state } = request;
  const last = lastStatusEvent(request.events);
  const ending = last !== null && isTerminal(state.status);
  if (ending || changed(doc, request.workerId, state)) {
    const $set: Partial<MeetingDoc> = {
      status: state.status,
      participantCount: state.participantCount,
      segmentCount: state.segmentCount,
      participants: state.participants,
      workerId: request.workerId,
    };
    if (ending) {
      $set.reason = typeof last.payload.reason === 'string' ? last.payload.reason : null;
      $set.endedAt = last.timestamp;
    }
    const result = await records.meetings.updateOne({ _id: doc._id, status: { $nin: ['ended', 'error'] } }, { $set });
    if (ending && result.matchedCount > 0) await records.release(doc.identityKey, doc._id);
    if (ending) log.forget(doc._id);
  }
  return { stored: request.events.length };
}

function lastStatusEvent(events: EventEnvelope[]): EventEnvelope | null {
  for (let i = events.length - 1; i >= 0; i--) if (events[i].type === 'meeting_status') return events[i];
  return null;
}

function changed(doc: MeetingDoc, workerId: string, state: RecordRequestState): boolean {
  return (
    doc.workerId !== workerId ||
    doc.status !== state.status ||
    doc.participantCount !== state.participantCount ||
    doc.segmentCount !== state.segmentCount ||
    doc.participants.length !== state.participants.length
  );
}

type RecordRequestState = ReturnType<typeof recordRequest.parse>['state'];
