/**
 * One meeting's spool sent to transcript-store, in order, one batch at a time: the batch the spool
 * cut (spool.ts) is sent again and again, the same (sequence, offset, bytes), until storage
 * acknowledges it; then the next. Nothing is dropped and nothing is sent at another offset, so a
 * batch is stored once however late an earlier attempt lands. Storage that does not answer, or
 * answers no (`storage_full`, an unreachable bucket), is tried again with a backoff capped at
 * MAX_BACKOFF_MS, for as long as it takes; meanwhile the recorder keeps writing to the spool.
 *
 * Once the meeting is over and everything is acknowledged, the file is finished with its gaps
 * (svc.transcripts.recording-finish) and the spool's folder goes. Only storage saying it will take
 * no more of this file (complete already: the lease sweep finished it; or short of bytes it had
 * acknowledged) ends the sending early: what the spool still held is lost, and said so in a log line.
 */
import { routes, ServiceError, type RecordingInfo } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { Batch, MeetingSpool } from './spool.js';

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 3_000;
/** `recording_unavailable` once this much of the timeline waits for storage; cleared below CLEAR_LAG_MS. */
const RAISE_LAG_MS = 5_000;
const CLEAR_LAG_MS = 2_000;
/** Storage takes no more of this file: retrying cannot change that. */
const FOR_GOOD = new Set(['recording_complete', 'conflict', 'recording_gap']);

export const backoffMs = (attempt: number) => Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));

export interface UplinkDeps {
  bus: Bus;
  logger: Logger;
  /** One attempt's wait (RECORDING_APPEND_TIMEOUT_MS): then the same batch is sent again. */
  timeoutMs: number;
  /** An append attempt failed and is tried again (a metric). */
  onRetry?: () => void;
  /** The file is finished; `heard`: whoever waited for it took it (else the registry is to be told). */
  finished: (meetingId: string, info: RecordingInfo | null, heard: boolean) => void;
}

export class Uplink {
  private active = false;
  private stopped = false;
  private cancelSleep: (() => void) | null = null;
  /** Whoever waits for the finished file now (the actor, for a moment); else `report`. */
  private taker: ((info: RecordingInfo | null) => void) | null = null;
  /** Storage does not take the audio now: `onStorage` was raised. */
  private troubled = false;
  private lastError = '';
  private finished = false;
  /** The finished file as storage answered (once finished). */
  private result: RecordingInfo | null = null;
  /** finish() failed and is retried: said once per episode. */
  private finishFailing = false;
  /** Told when storage stops or starts taking the audio again (recording_unavailable). */
  onStorage: (raised: boolean, detail: string) => void = () => {};

  constructor(
    private readonly spool: MeetingSpool,
    private readonly deps: UplinkDeps,
  ) {}

  get meetingId(): string {
    return this.spool.meetingId;
  }

  /** Bytes storage holds. */
  get storedBytes(): number {
    return this.spool.meta.ackedOffset;
  }

  /** Bytes written to the spool that storage has not acknowledged. */
  get pendingBytes(): number {
    return this.finished ? 0 : this.spool.pendingBytes;
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * A spool a previous process left: sent and finished. One whose meeting was not over (the
   * process died with it) is closed here, what it lacks up to `lostAtMs` a `worker_lost` gap.
   */
  resume(lostAtMs: number): void {
    if (!this.spool.meta.ended) this.spool.close(this.spool.meta.gaps, lostAtMs);
    this.wake();
  }

  /** More is in the spool, or the meeting ended: send it. */
  wake(): void {
    if (this.stopped || this.finished) return;
    this.checkLag();
    if (this.active) return;
    this.active = true;
    void this.run();
  }

  /**
   * The meeting is over (the spool closed): the finished file if storage takes everything within
   * `ms`, else 'later' and the registry is told when it does.
   */
  endWithin(ms: number): Promise<RecordingInfo | null | 'later'> {
    if (this.finished) return Promise.resolve(this.result);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.taker = null;
        resolve('later');
      }, ms);
      this.taker = (info) => {
        clearTimeout(timer);
        resolve(info);
      };
      this.wake();
    });
  }

  /** The process stops: no more attempts, nothing more touches the spool (the next process sends it). */
  stop(): void {
    this.stopped = true;
    this.cancelSleep?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    try {
      for (;;) {
        if (this.stopped || this.finished) return;
        let next: ReturnType<MeetingSpool['next']>;
        try {
          next = this.spool.next();
        } catch (err) {
          // The disk under the spool failed (it is read back for sending): look again soon.
          if (failures++ === 0)
            this.deps.logger.error({ err, meetingId: this.meetingId }, 'the recording spool cannot be read');
          await this.sleep(backoffMs(failures));
          continue;
        }
        failures = 0;
        if (!next) {
          if (this.spool.meta.ended) await this.finish();
          return;
        }
        await this.send(next.batch, next.bytes);
      }
    } finally {
      this.active = false;
    }
  }

  private async send(batch: Batch, bytes: Buffer): Promise<void> {
    const { meetingId } = this;
    const request = {
      meetingId,
      startedAt: new Date(this.spool.meta.startedAt).toISOString(),
      sequence: batch.sequence,
      offset: batch.offset,
      data: bytes.toString('base64'),
      durationMs: batch.durationMs,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await call(this.deps.bus, routes.recordings.append, request, { timeoutMs: this.deps.timeoutMs });
        if (this.stopped) return;
        this.spool.acknowledged(batch);
        this.recovered();
        return;
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ServiceError && FOR_GOOD.has(err.code)) return this.refusedForGood(err);
        this.deps.onRetry?.();
        this.failed(err, batch);
        await this.sleep(backoffMs(attempt));
        if (this.stopped) return;
      }
    }
  }

  /** Everything is stored: the file is finished with its gaps, the spool's folder goes. */
  private async finish(): Promise<void> {
    const { meetingId } = this;
    const request = {
      meetingId,
      gaps: this.spool.meta.gaps,
      ...(this.spool.meta.lostAtMs !== undefined ? { lostAtMs: this.spool.meta.lostAtMs } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const info = await call(this.deps.bus, routes.recordings.finish, request, { timeoutMs: this.deps.timeoutMs });
        if (this.stopped) return;
        this.spool.remove();
        this.finished = true;
        this.result = info;
        this.recovered();
        this.deliver(info);
        return;
      } catch (err) {
        if (this.stopped) return;
        if (!this.finishFailing)
          this.deps.logger.warn({ err, meetingId }, 'recording storage could not finish the file; trying again');
        this.finishFailing = true;
        await this.sleep(backoffMs(attempt));
        if (this.stopped) return;
      }
    }
  }

  /** Storage takes no more of the file: what the spool holds is lost (said), and the file is finished as storage has it. */
  private async refusedForGood(err: ServiceError): Promise<void> {
    const lostSeconds = Math.round(this.spool.pendingMs / 100) / 10;
    const log = { meetingId: this.meetingId, code: err.code, lostSeconds, lostBytes: this.spool.pendingBytes };
    if (err.code === 'recording_gap')
      this.deps.logger.error(
        { ...log, err },
        `recording storage lost audio it had acknowledged; ${lostSeconds} s of spooled audio cannot follow it`,
      );
    else
      this.deps.logger.warn(
        log,
        `the recording was completed before the worker's spooled audio reached it: ${lostSeconds} s of audio lost`,
      );
    this.spool.remove();
    this.spool.meta.ended = true;
    await this.finish();
  }

  /** Said at debug level: the warning (checkLag) comes once the audio waiting is worth one. */
  private failed(err: unknown, batch: Batch): void {
    this.lastError = err instanceof Error ? err.message : String(err);
    const log = { meetingId: this.meetingId, err, sequence: batch.sequence, pendingBytes: this.spool.pendingBytes };
    this.deps.logger.debug(log, 'recording storage did not take a batch; trying again');
    this.checkLag();
  }

  /** Raised once the audio waiting for storage is RAISE_LAG_MS of the timeline (an outage, not a slow answer). */
  private checkLag(): void {
    if (this.troubled || this.spool.pendingMs <= RAISE_LAG_MS) return;
    this.troubled = true;
    const seconds = Math.round(this.spool.pendingMs / 1000);
    const why = this.lastError || 'storage does not answer';
    const detail = `recording storage has not taken the last ${seconds} s of audio (${why}); the worker spools it and sends it when storage answers`;
    this.deps.logger.warn({ meetingId: this.meetingId, pendingBytes: this.spool.pendingBytes }, detail);
    this.onStorage(true, detail);
  }

  private recovered(): void {
    this.lastError = '';
    if (!this.troubled || (!this.finished && this.spool.pendingMs >= CLEAR_LAG_MS)) return;
    this.troubled = false;
    this.deps.logger.info(
      { meetingId: this.meetingId, pendingBytes: this.spool.pendingBytes },
      'recording storage takes the audio again',
    );
    this.onStorage(false, '');
  }

  private deliver(info: RecordingInfo | null): void {
    const taker = this.taker;
    this.taker = null;
    taker?.(info);
    this.deps.finished(this.meetingId, info, taker !== null);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.cancelSleep = () => {
        this.cancelSleep = null;
        done();
      };
    });
  }
}
