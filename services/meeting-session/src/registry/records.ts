/**
 * The registry's collections: meetings (one record per meeting, a projection of its event
 * stream), claims (at most one live meeting per platform identity) and workers (leases).
 */
import {
  errors,
  isTerminalStatus,
  meetingStatus,
  ServiceError,
  type Caller,
  type MeetingWarning,
  type RecordingInfo,
  type TranscriptionInfo,
  type MeetingRecord,
  type MeetingStatus,
  type MeetingSummary,
  type Platform,
} from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';

/** Still being transcribed (status lists them, the URL stays claimed): `leaving` too, until the final flush. */
export const NON_TERMINAL: readonly MeetingStatus[] = meetingStatus.options.filter((s) => !isTerminalStatus(s));
/**
 * What a stop can still act on (409 once it is no longer live: docs/api/reference.md#meetings).
 * A `leaving` bot is already on its way out, so stopping it again is the same 409 as an ended meeting.
 */
export const STOPPABLE: readonly MeetingStatus[] = ['joining', 'lobby', 'live'];
export const isStoppable = (status: MeetingStatus) => STOPPABLE.includes(status);

export type MeetingDoc = {
  _id: string;
  ownerKind: 'token' | 'ui';
  ownerId: string;
  platform: Platform;
  identityKey: string;
  title: string | null;
  project: string;
  saveTranscript: boolean;
  documentPath: string | null;
  status: MeetingStatus;
  reason: string | null;
  startedAt: string;
  endedAt: string | null;
  participantCount: number;
  segmentCount: number;
  participants: string[];
  /** Null while the start is in progress: such a record is nobody's meeting yet. */
  workerId: string | null;
  /** The last sequence of the stream the status and counts reflect (absent on records from before it was kept). */
  projectedThrough?: number;
  /** Set once its events were dropped from the event log after the retention period. */
  eventsPruned?: boolean;
  /** Caption warnings its worker reports (absent: none). */
  warnings?: MeetingWarning[];
  /** The recording as its worker last reported it (absent: not recorded). */
  recording?: RecordingInfo | null;
  /** What the start asked the words to come from, and what they come from now (absent on older records: captions). */
  transcription?: TranscriptionInfo;
  /** The caption language asked for (absent on records from before it was kept: null). */
  language?: string | null;
  /** The bot account the bot is signed in with: its id (seats) and name (shown). */
  accountId?: string | null;
  signedInAs?: string | null;
  /** Accounts this meeting has joined with so far, and whether one of them was signed out. */
  triedAccounts?: string[];
  accountSignedOut?: boolean;
};

export type ClaimDoc = { _id: string; meetingId: string; claimedAt: string };
export type WorkerDoc = {
  _id: string;
  leaseUntil: number;
  active: number;
  capacity: number;
  gone: boolean;
  /** false: no browser for its bots (its last heartbeat said so); absent on older records. */
  browser?: boolean;
};

/** A worker whose lease is current. */
const liveWorker = () => ({ gone: false, leaseUntil: { $gt: Date.now() } });

export function ownerOf(caller: Caller): { ownerKind: 'token' | 'ui'; ownerId: string } {
  return caller.kind === 'token'
    ? { ownerKind: 'token', ownerId: caller.tokenId }
    : { ownerKind: 'ui', ownerId: caller.accountId };
}

export function owns(caller: Caller, doc: MeetingDoc): boolean {
  const { ownerKind, ownerId } = ownerOf(caller);
  return doc.ownerKind === ownerKind && doc.ownerId === ownerId;
}

export class Records {
  readonly meetings: Collection<MeetingDoc>;
  readonly claims: Collection<ClaimDoc>;
  readonly workers: Collection<WorkerDoc>;

  constructor(store: Store) {
    this.meetings = store.collection<MeetingDoc>('meetings');
    this.claims = store.collection<ClaimDoc>('claims');
    this.workers = store.collection<WorkerDoc>('workers');
  }

  async init(): Promise<void> {
    await this.meetings.createIndex({ ownerId: 1, status: 1 });
    await this.meetings.createIndex({ status: 1 });
    // The sweep looks for ended meetings whose recording is still being sent (leases.ts).
    await this.meetings.createIndex({ 'recording.status': 1 });
    // A sweep ends the meetings of the workers that lapsed (leases.ts).
    await this.meetings.createIndex({ workerId: 1 });
    // Every start asks for a live worker, every sweep for the lapsed ones; gone ones stay on record.
    await this.workers.createIndex({ gone: 1 });
  }

  /**
   * Takes the identity for a meeting, atomically across every registry (the claim's `_id` is the
   * identity, unique in the store). A claim left by a meeting that has ended is taken over.
   */
  async claim(identityKey: string, meetingId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.claims.insertOne({ _id: identityKey, meetingId, claimedAt: new Date().toISOString() });
        return;
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
      }
      const held = await this.claims.findOne({ _id: identityKey });
      if (!held) continue;
      const holder = await this.meetings.findOne({ _id: held.meetingId });
      // A record is written before its claim, so a claim without a live record is stale. Its own
      // code: a calendar's scheduler tells "a bot is there already" from other refusals by it.
      if (holder && !isTerminalStatus(holder.status)) throw errors.alreadyTranscribed();
      await this.claims.deleteOne({ _id: identityKey, meetingId: held.meetingId });
    }
    throw errors.alreadyTranscribed();
  }

  async release(identityKey: string, meetingId: string): Promise<void> {
    await this.claims.deleteOne({ _id: identityKey, meetingId });
  }

  /** Bot seats of the workers whose lease is current and that have a browser: the instance's capacity. */
  async liveSeats(): Promise<number> {
    const workers = await this.liveWorkers();
    return workers.filter((w) => w.browser !== false).reduce((sum, worker) => sum + worker.capacity, 0);
  }

  /**
   * Whether a live worker has a browser for its bots; null when no worker is live. Asked on every
   * start: one worker found is the answer, rather than the whole fleet read. A worker without
   * `browser` on its record is an older one, which has a browser.
   */
  async botsAvailable(): Promise<boolean | null> {
    const live = liveWorker();
    const one = { projection: { _id: 1 as const } };
    if (await this.workers.findOne({ ...live, browser: { $ne: false } }, one)) return true;
    return (await this.workers.findOne(live, one)) ? false : null;
  }

  private liveWorkers(): Promise<WorkerDoc[]> {
    return this.workers.find(liveWorker());
  }

  /** The record when it exists, has started and belongs to the caller; else the one 404. */
  async owned(caller: Caller, meetingId: string): Promise<MeetingDoc> {
    const doc = await this.meetings.findOne({ _id: meetingId });
    if (!doc || doc.workerId === null || !owns(caller, doc)) throw errors.notFound();
    return doc;
  }

  async liveOf(caller: Caller): Promise<MeetingDoc[]> {
    const { ownerKind, ownerId } = ownerOf(caller);
    const docs = await this.meetings.find(
      { ownerId, ownerKind, status: { $in: [...NON_TERMINAL] }, workerId: { $ne: null } },
      { sort: { startedAt: 1 } },
    );
    return docs;
  }

  /**
   * Marks a meeting ended or failed unless it already is. Returns the record as it was before, or
   * null when another party finished it first: exactly one party writes a meeting's last status.
   */
  async finish(meetingId: string, status: 'ended' | 'error', reason: string): Promise<MeetingDoc | null> {
    const before = await this.meetings.findOne({ _id: meetingId });
    if (!before || isTerminalStatus(before.status)) return null;
    const won = await this.meetings.findOneAndUpdate(
      { _id: meetingId, status: before.status },
      { $set: { status, reason, endedAt: new Date().toISOString() } },
    );
    if (!won) return this.finish(meetingId, status, reason); // it moved meanwhile: look again
    await this.release(before.identityKey, meetingId);
    return before;
  }
}

export function toSummary(doc: MeetingDoc): MeetingSummary {
  return {
    meetingId: doc._id,
    status: doc.status,
    platform: doc.platform,
    title: doc.title,
    startedAt: doc.startedAt,
    participantCount: doc.participantCount,
    segmentCount: doc.segmentCount,
    project: doc.project,
    documentPath: doc.documentPath,
    warnings: doc.warnings ?? [],
    signedInAs: doc.signedInAs ?? null,
    language: doc.language ?? null,
    recording: doc.recording ?? null,
    transcription: doc.transcription ?? { mode: 'captions', source: null },
  };
}

export function toRecord(doc: MeetingDoc): MeetingRecord {
  return {
    ...toSummary(doc),
    endedAt: doc.endedAt,
    saveTranscript: doc.saveTranscript,
  };
}
