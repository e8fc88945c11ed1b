/**
 * Meetings' recordings as transcript-store keeps them: the audio in a RecordingStorage (files
 * under DATA_DIR, or a bucket), and per meeting a record of what is stored (record.ts) in the
 * service's own store. The worker appends Ogg pages as they come; each append is durable before
 * it is answered, so what was answered survives any crash, and the file is playable at every step
 * (recording/ogg.ts in meeting-session).
 *
 * - A batch is identified by (meetingId, sequence, offset): the worker sends a retry at the same
 *   offset, and bytes already stored are acknowledged, never written again, however late the
 *   retry or the first attempt lands (the meeting's requests run one after another, chains.ts,
 *   on the one replica that writes the recording, writers.ts). A batch that reaches a finished
 *   file is acknowledged when the file holds all of it, refused (`recording_complete`) otherwise.
 * - States, one meaning each: `recording`; `saved` (complete); `incomplete` (complete, with
 *   `gaps`); `failed` (nothing was stored). A finish that storage cannot complete leaves the file
 *   `recording`, notes the finish on the record and answers a retryable
 *   `recording_storage_unavailable`: the worker retries, and the sweep (sweep.ts) completes it as
 *   that finish asked once storage answers.
 */
import {
  errors,
  ServiceError,
  type ParsedRequestOf,
  type RecordingGap,
  type RecordingInfo,
  type routes,
} from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { Collection, Store } from '@notetaker/store';
import { BoundedChains, DEFAULT_CHAIN_LIMITS, type BusyReason, type ChainLimits } from './chains.js';
import { recordingErrors } from './errors.js';
import { lostGap, mergeGaps, sameGaps } from './gaps.js';
import type { RecordingStorage } from './port.js';
import { infoOf, isFinished, keyOf, type RecordingDoc, type StoredStatus } from './record.js';
import { RecordingWriters, type Claim, type WriterLeaseOptions } from './writers.js';

type AppendRequest = ParsedRequestOf<typeof routes.recordings.append>;
type FinishRequest = ParsedRequestOf<typeof routes.recordings.finish>;

export interface RecordingLibraryOptions {
  /** This replica's id (the lease's holder name). */
  replicaId: string;
  writerLease?: WriterLeaseOptions;
  chains?: ChainLimits;
  /** A request refused for the chains' bounds (the metrics count them). */
  onBusy?: (reason: BusyReason) => void;
}

/** Whatever storage threw, as the caller sees it: a recording error stays, anything else is the storage's. */
const storageFailed = (err: unknown) =>
  err instanceof ServiceError
    ? err
    : new ServiceError(
        'recording_storage_unavailable',
        `Recording storage refused the audio: ${err instanceof Error ? err.message : String(err)}`,
        503,
        true,
      );

/** A finish storage could not complete: always worth retrying, the record still says `recording`. */
const finishFailed = (err: unknown) =>
  new ServiceError(
    'recording_storage_unavailable',
    `Recording storage could not complete the file (it completes once storage answers): ${
      err instanceof Error ? err.message : String(err)
    }`,
    503,
    true,
  );

export class RecordingLibrary {
  readonly writers: RecordingWriters;
  readonly chains: BoundedChains;
  private readonly docs: Collection<RecordingDoc>;

  constructor(
    store: Store,
    private readonly storage: RecordingStorage,
    private readonly logger: Logger,
    options: RecordingLibraryOptions,
  ) {
    this.docs = store.collection<RecordingDoc>('recordings');
    this.writers = new RecordingWriters(this.docs, options.replicaId, logger, options.writerLease);
    this.chains = new BoundedChains(options.chains ?? DEFAULT_CHAIN_LIMITS, options.onBusy);
  }

  async init(): Promise<void> {
    await this.docs.createIndex({ status: 1 });
    await this.docs.createIndex({ writer: 1 });
    this.writers.start();
  }

  /**
   * Who writes the meeting's recording now (this replica, another one, or nobody yet). With
   * `startedAt` (an append), the record is made when there is none, leased to this replica.
   */
  writerOf(meetingId: string, startedAt?: string): Promise<Claim> {
    return this.writers.claim(meetingId, startedAt === undefined ? undefined : () => newRecord(meetingId, startedAt));
  }

  append(req: AppendRequest): Promise<{ bytes: number }> {
    const bytes = Buffer.from(req.data, 'base64');
    return this.chains.run(req.meetingId, bytes.length, async () => {
      await this.hold(req.meetingId, req.startedAt);
      const doc = await this.docs.findOne({ _id: req.meetingId });
      if (!doc) throw recordingErrors.busy(req.meetingId, 'its record was deleted meanwhile');
      if (isFinished(doc) || doc.finishRequestedAt) return this.appendAfterFinish(doc, req, bytes);
      const key = keyOf(doc._id);
      let size: number;
      try {
        ({ size } = await this.storage.append(key, req.offset, bytes));
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'recording_gap') {
          this.logger.warn(
            {
              meetingId: doc._id,
              sequence: req.sequence,
              offset: req.offset,
              stored: doc.bytes,
              lastSequence: doc.lastSequence,
            },
            'recording batch refused: it would leave a gap after what is stored',
          );
        }
        throw storageFailed(err);
      }
      if (req.offset + bytes.length <= doc.bytes) {
        this.logger.info(
          { meetingId: doc._id, sequence: req.sequence, offset: req.offset, lastSequence: doc.lastSequence },
          'recording batch stored already: acknowledged, not written again',
        );
      }
      await this.docs.updateOne(
        { _id: doc._id },
        {
          $set: {
            bytes: size,
            durationMs: Math.max(req.durationMs, doc.durationMs),
            updatedAt: new Date().toISOString(),
            ...(req.sequence !== undefined && { lastSequence: Math.max(req.sequence, doc.lastSequence ?? 0) }),
          },
        },
      );
      return { bytes: size };
    });
  }

  /**
   * Completes the file: `saved`, `incomplete` when there are gaps (these, those of an earlier
   * finish, and with `lostAtMs` a lost worker's), `failed` when nothing was stored. Idempotent.
   */
  finish(req: FinishRequest): Promise<RecordingInfo | null> {
    return this.chains.run(req.meetingId, 0, async () => {
      await this.hold(req.meetingId);
      const doc = await this.docs.findOne({ _id: req.meetingId });
      if (!doc) return null;
      if (isFinished(doc)) return this.regap(doc, req.gaps ?? []);
      let { gaps } = this.merged(doc, req.gaps ?? []);
      // The sweep of a lost worker's meeting: only when no finish came (the worker's gaps are the truth).
      const lost = req.lostAtMs !== undefined && !doc.finishRequestedAt ? lostGap(doc.durationMs, req.lostAtMs) : null;
      if (lost) gaps = this.merged({ ...doc, gaps }, [lost]).gaps;
      return this.complete(doc, gaps);
    });
  }

  /**
   * The sweep's finish of a recording no append reached since `before` and no finish asked for:
   * its worker is gone. What it did not send is lost: a `worker_lost` gap from the stored end to
   * the last time the worker was heard from (as long as nothing shows how long the meeting went on).
   * Null when an append or a finish came meanwhile (then it is not abandoned).
   */
  finishAbandoned(meetingId: string, before: string): Promise<RecordingInfo | null> {
    return this.chains.run(meetingId, 0, async () => {
      await this.hold(meetingId);
      const doc = await this.docs.findOne({ _id: meetingId });
      if (!doc || isFinished(doc) || doc.finishRequestedAt || doc.updatedAt >= before) return null;
      const heardMs = Date.parse(doc.updatedAt) - Date.parse(doc.startedAt);
      const lost = {
        startMs: doc.durationMs,
        endMs: Math.max(doc.durationMs, Number.isFinite(heardMs) ? heardMs : 0),
        reason: 'worker_lost' as const,
      };
      this.logger.warn(
        { meetingId, lastAppendAt: doc.updatedAt, lastSequence: doc.lastSequence },
        'recording abandoned (no append, no finish): completed with what was stored',
      );
      return this.complete(doc, this.merged(doc, [lost]).gaps);
    });
  }

  async get(meetingId: string): Promise<RecordingInfo | null> {
    const doc = await this.docs.findOne({ _id: meetingId });
    return doc ? infoOf(doc) : null;
  }

  /** Bytes [start, end] of what is stored now (end past the end is cut to it). */
  async read(meetingId: string, start: number, end: number): Promise<Buffer> {
    const doc = await this.docs.findOne({ _id: meetingId });
    if (!doc) throw errors.notFound('No recording');
    const size = (await this.storage.size(keyOf(meetingId))) ?? 0;
    if (start >= size) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    try {
      for await (const part of await this.storage.read(keyOf(meetingId), start, Math.min(end, size - 1))) {
        parts.push(part as Buffer);
      }
    } catch (err) {
      throw storageFailed(err);
    }
    return Buffer.concat(parts);
  }

  /** Removes the file everywhere it is kept, and its record. */
  delete(meetingId: string): Promise<{ deleted: boolean }> {
    return this.chains.run(meetingId, 0, async () => {
      await this.hold(meetingId);
      const doc = await this.docs.findOne({ _id: meetingId });
      if (!doc) return { deleted: false };
      await this.storage.delete(keyOf(meetingId));
      await this.docs.deleteOne({ _id: meetingId });
      this.writers.forget(meetingId);
      this.logger.info({ meetingId }, 'recording deleted');
      return { deleted: true };
    });
  }

  /** Deletes finished recordings that started before `before` (retention), each one logged. */
  async expire(before: string): Promise<{ deleted: string[] }> {
    const old = await this.docs.find({ startedAt: { $lt: before }, status: { $ne: 'recording' } });
    const deleted: string[] = [];
    for (const doc of old) {
      if ((await this.delete(doc._id)).deleted) {
        deleted.push(doc._id);
        this.logger.info({ meetingId: doc._id, startedAt: doc.startedAt }, 'recording expired: deleted');
      }
    }
    return { deleted };
  }

  /** Records the sweep looks at: finishes storage did not complete, and those no append reached since `before`. */
  due(before: string): Promise<RecordingDoc[]> {
    return this.docs.find({
      status: 'recording',
      $or: [{ finishRequestedAt: { $exists: true } }, { updatedAt: { $lt: before } }],
    });
  }

  /**
   * A record of an older version's `unavailable` state becomes `incomplete`, its file completed
   * when it was left open. The conditional update makes one replica do it.
   */
  async settleLegacy(): Promise<number> {
    let settled = 0;
    for (const doc of await this.docs.find({ status: 'unavailable' })) {
      const now = new Date().toISOString();
      const won = await this.docs.updateOne(
        { _id: doc._id, status: 'unavailable' },
        { $set: { status: 'incomplete', updatedAt: now } },
      );
      if (won.matchedCount === 0) continue;
      try {
        const stat = await this.storage.stat(keyOf(doc._id));
        if (stat && !stat.complete) {
          const { size } = await this.storage.complete(keyOf(doc._id));
          await this.docs.updateOne({ _id: doc._id }, { $set: { bytes: size } });
        }
        settled++;
      } catch (err) {
        await this.docs.updateOne({ _id: doc._id, status: 'incomplete' }, { $set: { status: 'unavailable' } });
        this.logger.warn({ err, meetingId: doc._id }, 'could not complete a recording an older version left open');
      }
    }
    return settled;
  }

  /** Waits for the requests under way, then lets this replica's leases go (the others take over at once). */
  async close(): Promise<void> {
    await this.chains.idle();
    await this.writers.close();
  }

  /** This replica writes the recording: another one's lease is a retryable refusal. */
  private async hold(meetingId: string, startedAt?: string): Promise<void> {
    const claim = await this.writers.hold(
      meetingId,
      startedAt === undefined ? undefined : () => newRecord(meetingId, startedAt),
    );
    // It held nothing a moment ago: another replica may have written since, so what the
    // storage adapter remembers of the file is read again.
    if (claim.kind === 'mine' && claim.acquired) this.storage.forget?.(keyOf(meetingId));
  }

  /** A batch for a file that is complete, or whose finish came: only a late retry is taken (acknowledged). */
  private async appendAfterFinish(doc: RecordingDoc, req: AppendRequest, bytes: Buffer): Promise<{ bytes: number }> {
    const key = keyOf(doc._id);
    let stored = doc.bytes;
    if (!isFinished(doc)) {
      try {
        stored = (await this.storage.size(key)) ?? 0;
      } catch (err) {
        throw storageFailed(err);
      }
    }
    const fields = { meetingId: doc._id, sequence: req.sequence, offset: req.offset, lastSequence: doc.lastSequence };
    if (req.offset + bytes.length <= stored) {
      this.logger.info(fields, 'late retry of a stored recording batch: acknowledged');
      return { bytes: stored };
    }
    this.logger.warn({ ...fields, status: doc.status }, 'recording batch refused: the recording is finished');
    throw recordingErrors.complete(key, stored);
  }

  /** Completes the file in storage and the record with `gaps`; on failure the record stays `recording`, the finish noted. */
  private async complete(doc: RecordingDoc, gaps: RecordingGap[]): Promise<RecordingInfo> {
    const key = keyOf(doc._id);
    // Noted before storage is asked: a finish storage cannot complete now is completed by the
    // sweep as this one asked, never as a lost worker's.
    const finishRequestedAt = doc.finishRequestedAt ?? new Date().toISOString();
    await this.docs.updateOne({ _id: doc._id }, { $set: { gaps, finishRequestedAt } });
    let bytes = 0;
    try {
      const size = await this.storage.size(key);
      if (size) bytes = (await this.storage.complete(key)).size;
      // An empty file (a first chunk cut off by a full disk) holds nothing to keep.
      else if (size === 0) await this.storage.delete(key);
    } catch (err) {
      this.logger.warn(
        { err, meetingId: doc._id, lastSequence: doc.lastSequence },
        'recording storage could not complete the file: it stays recording until storage answers',
      );
      throw finishFailed(err);
    }
    const status: StoredStatus = bytes === 0 ? 'failed' : gaps.length > 0 ? 'incomplete' : 'saved';
    const done: RecordingDoc = { ...doc, bytes, status, gaps, updatedAt: new Date().toISOString() };
    delete done.finishRequestedAt;
    await this.docs.updateOne(
      { _id: doc._id },
      { $set: { bytes, status, gaps, updatedAt: done.updatedAt }, $unset: { finishRequestedAt: '' } },
    );
    await this.writers.release(doc._id);
    const line = {
      meetingId: doc._id,
      bytes,
      durationMs: doc.durationMs,
      status,
      gaps: gaps.length,
      lastSequence: doc.lastSequence,
    };
    if (status === 'saved') this.logger.info(line, 'recording saved');
    else
      this.logger.warn(
        line,
        status === 'failed' ? 'recording failed: nothing was stored' : 'recording saved with gaps',
      );
    return infoOf(done);
  }

  /** A finish of a finished file: its gaps merged with these (saved becomes incomplete when there are some). */
  private async regap(doc: RecordingDoc, added: RecordingGap[]): Promise<RecordingInfo> {
    const { gaps } = this.merged(doc, added);
    // `failed` stays (nothing is stored); an older version's `unavailable` is settled by the sweep.
    const status: StoredStatus =
      doc.status === 'failed' || doc.status === 'unavailable' ? doc.status : gaps.length > 0 ? 'incomplete' : 'saved';
    if (sameGaps(gaps, doc.gaps ?? []) && status === doc.status) return infoOf(doc);
    const updatedAt = new Date().toISOString();
    await this.docs.updateOne({ _id: doc._id }, { $set: { gaps, status, updatedAt } });
    return infoOf({ ...doc, gaps, status, updatedAt });
  }

  private merged(doc: RecordingDoc, added: RecordingGap[]) {
    const merged = mergeGaps(doc.gaps ?? [], added);
    if (merged.dropped > 0) {
      this.logger.warn(
        { meetingId: doc._id, dropped: merged.dropped },
        'recording has more gaps than its record keeps',
      );
    }
    return merged;
  }
}

function newRecord(meetingId: string, startedAt: string): RecordingDoc {
  return {
    _id: meetingId,
    startedAt,
    status: 'recording',
    bytes: 0,
    durationMs: 0,
    gaps: [],
    updatedAt: new Date().toISOString(),
  };
}
