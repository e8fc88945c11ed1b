/**
 * Worker leases. Each worker renews its lease every third of WORKER_LEASE_MS; every registry
 * sweeps as often. A meeting whose worker's lease ran out (or that never got a worker) ends in
 * `error` / `worker_lost`, written by the registry in the meeting's own stream, and its URL is
 * free again. A worker that comes back is told to drop the actors it no longer owns.
 */
import { evtMeeting, isTerminalStatus, routes, TERMINAL_STATUSES, type EventEnvelope } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { HeartbeatReply, HeartbeatRequest } from '../protocol.js';
import type { EventLog } from './event-log.js';
import { NON_TERMINAL, type MeetingDoc, type Records } from './records.js';
import { finishLostRecording, noteRecordingSaved } from './recording-saved.js';

export interface LeaseDeps {
  bus: Bus;
  records: Records;
  log: EventLog;
  logger: Logger;
  leaseMs: number;
  /** How long the events of an ended meeting stay in the log (for consumers catching up). */
  retentionMs: number;
  /**
   * Whether this process's own worker holds audio of the meeting in its spool (registry and worker
   * in one process): that worker sends it and finishes the file, so the sweep leaves the file alone.
   */
  spooledHere?: (meetingId: string) => boolean;
}

/** Ended meetings whose recording is still being sent, looked at per sweep. */
const PENDING_RECORDINGS_PER_SWEEP = 100;

/** How long a start may take before a record without a worker counts as abandoned. */
const PENDING_GRACE_MS = 60_000;

/** `beat` is parsed already (answer() of the heartbeat route). */
export async function renewLease(deps: LeaseDeps, beat: HeartbeatRequest): Promise<HeartbeatReply> {
  const { records } = deps;
  await records.workers.updateOne(
    { _id: beat.workerId },
    {
      $set: {
        leaseUntil: beat.leaving ? 0 : Date.now() + deps.leaseMs,
        active: beat.active,
        capacity: beat.capacity,
        browser: beat.browser !== false,
        gone: false,
      },
    },
    { upsert: true },
  );
  if (beat.meetingIds.length === 0) return { release: [] };
  const docs = await records.meetings.find(
    { _id: { $in: beat.meetingIds } },
    { projection: { status: 1, workerId: 1 } },
  );
  // A record without a worker is a start in progress: its worker accepted the placement, and the
  // start writes who that is once the reply is back (launch-bot.ts). The one worker that names it
  // is that worker, as record-events.ts also holds: releasing it there would leave it live forever.
  const mine = new Set(
    docs
      .filter((d) => !isTerminalStatus(d.status) && (d.workerId === beat.workerId || d.workerId === null))
      .map((d) => d._id),
  );
  return { release: beat.meetingIds.filter((id) => !mine.has(id)) };
}

/**
 * How often a registry's sweep reads every live meeting. The sweeps between read only the workers
 * whose lease ran out since and their meetings: at a thousand workers and ten thousand meetings a
 * sweep each second that read them all held the registry's event loop for tens of milliseconds.
 * The full one catches what those cannot see: a start abandoned mid-way, a meeting whose worker
 * never renewed a lease, or one whose worker another registry marked gone and died before ending.
 */
export const FULL_SWEEP_MS = 60_000;

export interface SweepOptions {
  /** No other worker can exist (an embedded restart): their meetings end now. Implies `full`. */
  allOthersGone?: string | true;
  /** Every live meeting checked, not only those of the workers that lapsed now (default true). */
  full?: boolean;
}

/** Ends every live meeting whose worker is gone. */
export async function sweep(deps: LeaseDeps, options: SweepOptions = {}): Promise<number> {
  const { records } = deps;
  const now = Date.now();
  if (options.allOthersGone) {
    const keep = options.allOthersGone === true ? undefined : options.allOthersGone;
    await records.workers.updateMany(keep ? { _id: { $ne: keep } } : {}, { $set: { gone: true, leaseUntil: 0 } });
  }
  let ended = 0;
  const lapsed = await markLapsed(deps, now);
  if (lapsed.length > 0) {
    const theirs = await records.meetings.find(
      { workerId: { $in: lapsed }, status: { $in: [...NON_TERMINAL] } },
      { projection: { _id: 1 } },
    );
    for (const { _id } of theirs) if (await endLostMeeting(deps, _id)) ended++;
  }
  if (options.full !== false || options.allOthersGone) {
    ended += await sweepEveryMeeting(deps, now);
    await pruneEvents(deps, now);
  }
  await finishOrphanedRecordings(deps);
  return ended;
}

/** Marks gone the workers whose lease ran out (unless renewed meanwhile); the ids this sweep marked. */
async function markLapsed({ records }: LeaseDeps, now: number): Promise<string[]> {
  const due = await records.workers.find({ gone: false, leaseUntil: { $lt: now } }, { projection: { _id: 1 } });
  const marked: string[] = [];
  for (const { _id } of due) {
    const { modifiedCount } = await records.workers.updateOne(
      { _id, gone: false, leaseUntil: { $lt: now } },
      { $set: { gone: true } },
    );
    if (modifiedCount > 0) marked.push(_id);
  }
  return marked;
}

/** Every live meeting whose worker is not alive ends; a start abandoned past its grace is cleared. */
async function sweepEveryMeeting(deps: LeaseDeps, now: number): Promise<number> {
  const { records } = deps;
  const alive = new Set((await records.workers.find({ gone: false }, { projection: { _id: 1 } })).map((w) => w._id));
  // The fields read here only: ten thousand whole records copied out cost more than the check.
  const live = (await records.meetings.find(
    { status: { $in: [...NON_TERMINAL] } },
    { projection: { workerId: 1, startedAt: 1, identityKey: 1 } },
  )) as Array<Pick<MeetingDoc, '_id' | 'workerId' | 'startedAt' | 'identityKey'>>;
  let ended = 0;
  for (const doc of live) {
    if (doc.workerId === null) {
      // A start that never finished (its registry died mid-way): the caller got no meetingId.
      if (now - Date.parse(doc.startedAt) > PENDING_GRACE_MS) {
        await records.release(doc.identityKey, doc._id);
        await records.meetings.deleteOne({ _id: doc._id, workerId: null });
      }
      continue;
    }
    if (alive.has(doc.workerId)) continue;
    if (await endLostMeeting(deps, doc._id)) ended++;
  }
  return ended;
}

/** The event log keeps ended meetings' events for the retention period, then drops them. */
async function pruneEvents(deps: LeaseDeps, now: number): Promise<void> {
  const cutoff = new Date(now - deps.retentionMs).toISOString();
  const old = await deps.records.meetings.find(
    { status: { $in: ['ended', 'error'] }, endedAt: { $lt: cutoff }, eventsPruned: { $ne: true } },
    { limit: 100, projection: { _id: 1 } },
  );
  const ids = old.map((d) => d._id);
  await deps.log.drop(ids);
  if (ids.length > 0) await deps.records.meetings.updateMany({ _id: { $in: ids } }, { $set: { eventsPruned: true } });
}

/**
 * Finishes a meeting whose actor is gone: the final document flush (the transcript so far is
 * kept) and `error` / `worker_lost`, appended after the last stored event. Returns false when
 * another party ended it first.
 */
export async function endLostMeeting(deps: LeaseDeps, meetingId: string): Promise<boolean> {
  const before = await deps.records.finish(meetingId, 'error', 'worker_lost');
  if (!before) return false;
  deps.logger.warn({ meetingId, workerId: before.workerId }, 'meeting lost its worker');
  const events: EventEnvelope[] = [];
  const recording = await finishRecording(deps, { _id: meetingId, recording: before.recording, endedAt: null });
  if (recording) events.push(recording);
  if (before.saveTranscript) {
    const saved = await finalFlush(deps, before);
    if (saved) events.push(await deps.log.appendNext(meetingId, 'document_saved', saved));
  }
  events.push(
    await deps.log.appendNext(meetingId, 'meeting_status', {
      status: 'error',
      previousStatus: before.status,
      reason: 'worker_lost',
    }),
  );
  for (const event of events) deps.bus.publish(evtMeeting(meetingId, event.type), event);
  return true;
}

/**
 * The file of a meeting whose worker vanished, complete with what reached storage, and its
 * `recording_saved` (not yet published); null when there is none, or the worker of this very
 * process will send what it spooled and finish the file itself.
 */
async function finishRecording(
  deps: LeaseDeps,
  doc: Pick<MeetingDoc, '_id' | 'recording' | 'endedAt'>,
): Promise<EventEnvelope | null> {
  if (deps.spooledHere?.(doc._id)) return null;
  const saved = await finishLostRecording(deps, doc);
  if (saved === 'unanswered') return null;
  if (saved) return noteRecordingSaved(deps, doc._id, saved);
  // Nothing was ever stored: the record stops saying it records.
  if (doc.recording) {
    const { format, bytes, durationMs, startedAt, url, gaps } = doc.recording;
    const failed = { status: 'failed' as const, format, bytes, durationMs, startedAt, url, gaps };
    await deps.records.meetings.updateOne(
      { _id: doc._id, 'recording.status': 'recording' },
      { $set: { recording: failed } },
    );
  }
  return null;
}

/**
 * Ended meetings whose recording was still being sent (their `recording_saved` was to come after
 * `ended`) by a worker that is gone since: finished with what storage holds (`worker_lost` after it).
 */
async function finishOrphanedRecordings(deps: LeaseDeps): Promise<void> {
  const pending = await deps.records.meetings.find(
    { 'recording.status': 'recording', status: { $in: [...TERMINAL_STATUSES] } },
    { limit: PENDING_RECORDINGS_PER_SWEEP },
  );
  if (pending.length === 0) return;
  const workerIds = [...new Set(pending.map((doc) => doc.workerId).filter((id) => id !== null))];
  const alive = new Set(
    (await deps.records.workers.find({ _id: { $in: workerIds }, gone: false }, { projection: { _id: 1 } })).map(
      (w) => w._id,
    ),
  );
  for (const doc of pending) {
    if (doc.workerId !== null && alive.has(doc.workerId)) continue;
    const event = await finishRecording(deps, doc);
    if (event) deps.bus.publish(evtMeeting(doc._id, event.type), event);
  }
}

async function finalFlush(deps: LeaseDeps, doc: MeetingDoc): Promise<Record<string, unknown> | null> {
  try {
    // null when no document was saved; a reply outside the contract throws (502) and ends up below.
    return await call(deps.bus, routes.transcripts.flush, {
      meetingId: doc._id,
      status: 'completed',
      participants: doc.participants,
    });
  } catch (err) {
    deps.logger.warn({ err, meetingId: doc._id }, 'final flush of a lost meeting failed');
    return null;
  }
}
