/**
 * One writer per recording, however many transcript-store replicas share the store and the
 * storage: the replica that writes a meeting's file holds a lease on its record (`writer`, its
 * id, and `writerUntil`, a time), taken and renewed by a conditional update that only matches
 * while no other replica holds a live lease (the same on MongoDB and the embedded store). Only a
 * recording being written has one: a finished file is only read. The
 * other replicas hand that meeting's requests to the holder (forwarding.ts) until the lease is
 * let go (the holder finished the file, or stopped) or runs out (the holder died: it is taken
 * over `ttlMs` after its last renewal).
 *
 * A holder renews its leases every `ttlMs / 3` and counts a lease as its own until `ttlMs -
 * marginMs` after the renewal was sent, never longer: a replica that cannot reach the store stops
 * writing before anyone may take over, and replicas' clocks may differ by up to `marginMs`.
 */
import type { Logger } from '@notetaker/observability';
import type { Collection, Document } from '@notetaker/store';
import { recordingErrors } from './errors.js';

export interface WriterLeaseOptions {
  /** How long a lease lasts after its last renewal (default 15 s): how soon a dead replica's recordings are taken over. */
  ttlMs?: number;
}

export const DEFAULT_WRITER_LEASE_MS = 15_000;

/** The lease's fields on a recording's record. */
export interface WriterFields {
  writer?: string;
  /** Epoch ms (the holder's clock). */
  writerUntil?: number;
}

export type Claim =
  /** This replica writes the recording. `acquired`: it did not hold it a moment ago (another may have written meanwhile). */
  | { kind: 'mine'; acquired: boolean }
  /** Nobody needs to write it: there is no record (and none was to be made), or it is finished. */
  | { kind: 'none' }
  /** Another replica writes it, until `untilMs` at the latest unless it renews. */
  | { kind: 'theirs'; holder: string; untilMs: number };

type LeasedDoc = Document & WriterFields & { _id: string };

export class RecordingWriters {
  readonly ttlMs: number;
  private readonly marginMs: number;
  /** Recordings this replica holds, and until when it may count on it (its own clock). */
  private readonly held = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private renewalFailing = false;

  constructor(
    private readonly docs: Collection<LeasedDoc>,
    /** This replica's id: its per-replica subject's token too. */
    readonly id: string,
    private readonly logger: Logger,
    options: WriterLeaseOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_WRITER_LEASE_MS;
    this.marginMs = Math.floor(this.ttlMs / 3);
  }

  /** Renews the leases held every ttl/3 until close(). */
  start(): void {
    this.timer = setInterval(
      () => {
        this.renewing = this.renewing.then(() => this.renew());
      },
      Math.max(10, Math.floor(this.ttlMs / 3)),
    );
    this.timer.unref();
  }

  /**
   * Who writes `meetingId`'s recording: this replica when it holds the lease, takes it (nobody
   * holds it, or the holder's ran out), or makes the record (`newRecord`, for a first append).
   */
  async claim(meetingId: string, newRecord?: () => LeasedDoc): Promise<Claim> {
    const until = this.held.get(meetingId);
    if (until !== undefined && until > Date.now()) return { kind: 'mine', acquired: false };
    this.held.delete(meetingId);
    for (let attempt = 0; attempt < 3; attempt++) {
      const sent = Date.now();
      const taken = await this.docs.updateOne(
        {
          _id: meetingId,
          status: 'recording',
          $or: [{ writer: this.id }, { writer: { $exists: false } }, { writerUntil: { $lt: sent } }],
        },
        { $set: { writer: this.id, writerUntil: sent + this.ttlMs } },
      );
      if (taken.matchedCount === 1) return this.mine(meetingId, sent);
      const doc = await this.docs.findOne({ _id: meetingId }, { projection: { status: 1, writer: 1, writerUntil: 1 } });
      // A finished file is only read (a late retry is answered from its size): no writer.
      if (doc && doc.status !== 'recording') return { kind: 'none' };
      if (doc?.writer && doc.writerUntil !== undefined && doc.writerUntil >= Date.now()) {
        return { kind: 'theirs', holder: doc.writer, untilMs: doc.writerUntil };
      }
      if (doc) continue; // the lease ran out, or was let go, since the update: take it now
      if (!newRecord) return { kind: 'none' };
      try {
        await this.docs.insertOne({ ...newRecord(), writer: this.id, writerUntil: sent + this.ttlMs });
        return this.mine(meetingId, sent);
      } catch (err) {
        // Another replica made it first: look again.
        if ((err as { code?: string }).code !== 'duplicate_key') throw err;
      }
    }
    throw recordingErrors.busy(meetingId, 'replicas keep taking its lease from one another');
  }

  /** claim(), for a request about to touch storage: another replica's lease is a retryable refusal. */
  async hold(meetingId: string, newRecord?: () => LeasedDoc): Promise<Exclude<Claim, { kind: 'theirs' }>> {
    const claim = await this.claim(meetingId, newRecord);
    if (claim.kind === 'theirs') {
      throw recordingErrors.busy(meetingId, 'another replica writes it now', retryAfter(claim.untilMs));
    }
    return claim;
  }

  /** The recording is finished (or gone): another replica may write it from now on. */
  async release(meetingId: string): Promise<void> {
    this.held.delete(meetingId);
    await this.docs.updateOne({ _id: meetingId, writer: this.id }, { $unset: { writer: '', writerUntil: '' } });
  }

  /** The record was deleted with its lease. */
  forget(meetingId: string): void {
    this.held.delete(meetingId);
  }

  /** Leases this replica counts as its own now. */
  count(): number {
    const now = Date.now();
    let n = 0;
    for (const until of this.held.values()) if (until > now) n++;
    return n;
  }

  /** Stops renewing and lets every lease go, so the other replicas take over at once. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.renewing;
    this.held.clear();
    try {
      await this.docs.updateMany({ writer: this.id }, { $unset: { writer: '', writerUntil: '' } });
    } catch (err) {
      // Nothing lost: they run out within ttlMs, and the other replicas take over then.
      this.logger.warn({ err }, 'could not let go of recording writer leases; they run out by themselves');
    }
  }

  private mine(meetingId: string, sent: number): Claim {
    this.held.set(meetingId, sent + this.ttlMs - this.marginMs);
    return { kind: 'mine', acquired: true };
  }

  private async renew(): Promise<void> {
    const sent = Date.now();
    // Only leases still counted as ours: one that lapsed may have been taken over since.
    const ids = [...this.held].filter(([, until]) => until > sent).map(([id]) => id);
    for (const [id, until] of this.held) if (until <= sent) this.held.delete(id);
    if (ids.length === 0) return;
    try {
      await this.docs.updateMany({ _id: { $in: ids }, writer: this.id }, { $set: { writerUntil: sent + this.ttlMs } });
      for (const id of ids) if (this.held.has(id)) this.held.set(id, sent + this.ttlMs - this.marginMs);
      if (this.renewalFailing) this.logger.info({ leases: ids.length }, 'recording writer leases renewed again');
      this.renewalFailing = false;
    } catch (err) {
      if (!this.renewalFailing) {
        this.logger.warn(
          { err, leases: ids.length },
          'could not renew recording writer leases: this replica stops writing those recordings when they run out',
        );
      }
      this.renewalFailing = true;
    }
  }
}

/** Seconds until a lease runs out, for a retry's hint (at least 1). */
export function retryAfter(untilMs: number): number {
  return Math.max(1, Math.ceil((untilMs - Date.now()) / 1000));
}
