/**
 * Meetings' recordings as transcript-store keeps them: the audio in a RecordingStorage (files
 * under DATA_DIR, or a bucket), and per meeting a record of what is stored (status, bytes, the
 * timeline's length) in the service's own store. The worker appends Ogg pages as they come; each
 * append is durable before it is answered, so what was answered survives any crash, and the file
 * is playable at every step (recording/ogg.ts in meeting-session).
 */
import {
  errors,
  RECORDING_FORMAT,
  recordingPath,
  ServiceError,
  type ParsedRequestOf,
  type RecordingInfo,
  type routes,
} from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { Collection, Store } from '@notetaker/store';
import type { RecordingStorage } from './port.js';

type RecordingStatus = RecordingInfo['status'];

interface RecordingDoc {
  [key: string]: unknown;
  _id: string;
  startedAt: string;
  status: RecordingStatus;
  bytes: number;
  durationMs: number;
  updatedAt: string;
}

/** A recording no append has reached for this long at start belongs to a meeting that is over. */
const ABANDONED_AFTER_MS = 10 * 60_000;

const storageFailed = (err: unknown) =>
  err instanceof ServiceError
    ? err
    : new ServiceError(
        'recording_storage_unavailable',
        `Recording storage refused the audio: ${err instanceof Error ? err.message : String(err)}`,
        503,
      );

export class RecordingLibrary {
  private readonly docs: Collection<RecordingDoc>;
  /** Appends of one meeting run one after the other (a retried chunk must see the first one's size). */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    store: Store,
    private readonly storage: RecordingStorage,
    private readonly logger: Logger,
  ) {
    this.docs = store.collection<RecordingDoc>('recordings');
  }

  async init(): Promise<void> {
    await this.docs.createIndex({ status: 1 });
    // Files left open by a process that died with its meetings, or that storage could not complete
    // when they ended: complete them now ("at the next start").
    const cutoff = new Date(Date.now() - ABANDONED_AFTER_MS).toISOString();
    const open = [
      ...(await this.docs.find({ status: 'recording', updatedAt: { $lt: cutoff } })),
      ...(await this.docs.find({ status: 'unavailable' })),
    ];
    for (const doc of open) {
      if ((await this.storage.stat(keyOf(doc._id)))?.complete !== false) continue;
      await this.storage
        .complete(keyOf(doc._id))
        .then(() =>
          this.docs.updateOne(
            { _id: doc._id },
            { $set: { status: doc.status === 'recording' ? 'saved' : doc.status } },
          ),
        )
        .catch((err: unknown) =>
          this.logger.warn({ err, meetingId: doc._id }, 'could not complete a recording left open'),
        );
    }
  }

  append(req: ParsedRequestOf<typeof routes.recordings.append>): Promise<{ bytes: number }> {
    return this.serialised(req.meetingId, async () => {
      const doc = await this.docs.findOne({ _id: req.meetingId });
      if (doc && doc.status === 'saved') throw errors.conflict('The recording is complete');
      if (!doc) {
        await this.docs.insertOne({
          _id: req.meetingId,
          startedAt: req.startedAt,
          status: 'recording',
          bytes: 0,
          durationMs: 0,
          updatedAt: new Date().toISOString(),
        });
      }
      let size: number;
      try {
        ({ size } = await this.storage.append(keyOf(req.meetingId), req.offset, Buffer.from(req.data, 'base64')));
      } catch (err) {
        throw storageFailed(err);
      }
      await this.docs.updateOne(
        { _id: req.meetingId },
        {
          $set: {
            bytes: size,
            durationMs: Math.max(req.durationMs, doc?.durationMs ?? 0),
            status: 'recording',
            updatedAt: new Date().toISOString(),
          },
        },
      );
      return { bytes: size };
    });
  }

  /** The file is complete: `saved`, or `unavailable` when storage refused part of it. Idempotent. */
  finish(req: { meetingId: string; status?: RecordingStatus }): Promise<RecordingInfo | null> {
    return this.serialised(req.meetingId, async () => {
      const doc = await this.docs.findOne({ _id: req.meetingId });
      if (!doc) return null;
      if (doc.status !== 'recording' && doc.status === (req.status ?? doc.status)) return infoOf(doc);
      let bytes = doc.bytes;
      try {
        // Nothing ever reached storage (its first append was refused): nothing to complete.
        if ((await this.storage.size(keyOf(doc._id))) !== null)
          bytes = (await this.storage.complete(keyOf(doc._id))).size;
      } catch (err) {
        // The file stays as far as it got; the next start completes it (init), and meanwhile it says why.
        this.logger.warn({ err, meetingId: doc._id }, 'recording storage could not complete the file');
        await this.docs.updateOne(
          { _id: doc._id },
          { $set: { status: 'unavailable', updatedAt: new Date().toISOString() } },
        );
        throw storageFailed(err);
      }
      const status: RecordingStatus = req.status === 'unavailable' ? 'unavailable' : 'saved';
      const done = { ...doc, bytes, status, updatedAt: new Date().toISOString() };
      await this.docs.updateOne({ _id: doc._id }, { $set: { bytes, status, updatedAt: done.updatedAt } });
      this.logger.info({ meetingId: doc._id, bytes, durationMs: doc.durationMs, status }, 'recording saved');
      return infoOf(done);
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
    return this.serialised(meetingId, async () => {
      const doc = await this.docs.findOne({ _id: meetingId });
      if (!doc) return { deleted: false };
      await this.storage.delete(keyOf(meetingId));
      await this.docs.deleteOne({ _id: meetingId });
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

  private serialised<T>(meetingId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(meetingId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    this.chains.set(meetingId, next);
    void next
      .catch(() => {})
      .finally(() => {
        if (this.chains.get(meetingId) === next) this.chains.delete(meetingId);
      });
    return next;
  }
}

const keyOf = (meetingId: string) => `${meetingId}.ogg`;

function infoOf(doc: RecordingDoc): RecordingInfo {
  return {
    status: doc.status,
    format: RECORDING_FORMAT,
    bytes: doc.bytes,
    durationMs: doc.durationMs,
    startedAt: doc.startedAt,
    url: recordingPath(doc._id),
  };
}
