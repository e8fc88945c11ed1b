/**
 * Completes, on every replica, every minute and at start, the recordings nobody else will:
 *
 * - a finish that storage could not complete (the record stays `recording`, the finish noted):
 *   completed as that finish asked, once storage answers, whether or not the worker still retries;
 * - a recording no append has reached for `abandonedAfterMs` and no finish asked for: its
 *   worker is gone and the registry did not finish it either. Completed with what was stored and
 *   a `worker_lost` gap from there (library.finishAbandoned);
 * - an older version's `unavailable` record: `incomplete`, its file completed if it was left open.
 *
 * A recording another replica holds the lease of is left to that replica's sweep; the lease makes
 * one replica do each.
 */
import { ServiceError } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { RecordingLibrary } from './library.js';

/** A recording no append has reached for this long belongs to a meeting that is over. */
export const ABANDONED_AFTER_MS = 10 * 60_000;
export const SWEEP_EVERY_MS = 60_000;

export interface SweepOptions {
  everyMs?: number;
  abandonedAfterMs?: number;
}

export type SweptKind = 'finish_retried' | 'abandoned' | 'legacy';

export interface SweepResult {
  completed: Record<SweptKind, number>;
  /** Recordings that stay as they were (storage still refuses, or another replica is busy with them). */
  left: number;
}

export class RecordingSweep {
  private readonly everyMs: number;
  private readonly abandonedAfterMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly library: RecordingLibrary,
    private readonly logger: Logger,
    options: SweepOptions = {},
    private readonly onSwept: (result: SweepResult) => void = () => {},
  ) {
    this.everyMs = options.everyMs ?? SWEEP_EVERY_MS;
    this.abandonedAfterMs = options.abandonedAfterMs ?? ABANDONED_AFTER_MS;
  }

  /** Sweeps now (in the background: the service does not wait for storage to start) and then every `everyMs`. */
  start(): void {
    const tick = () => {
      // One sweep at a time: a slow storage makes the next one wait, not pile up.
      this.running = this.running
        .then(() => this.sweep())
        .catch((err: unknown) => {
          this.logger.warn({ err }, 'recording sweep failed; it runs again in a minute');
        });
    };
    tick();
    this.timer = setInterval(tick, this.everyMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  async sweep(): Promise<SweepResult> {
    const result: SweepResult = { completed: { finish_retried: 0, abandoned: 0, legacy: 0 }, left: 0 };
    const before = new Date(Date.now() - this.abandonedAfterMs).toISOString();
    for (const doc of await this.library.due(before)) {
      if (doc.writer && doc.writer !== this.library.writers.id && (doc.writerUntil ?? 0) >= Date.now()) {
        continue; // its writer is alive: its own sweep does it
      }
      try {
        const done = doc.finishRequestedAt
          ? await this.library.finish({ meetingId: doc._id })
          : await this.library.finishAbandoned(doc._id, before);
        if (done) result.completed[doc.finishRequestedAt ? 'finish_retried' : 'abandoned']++;
      } catch (err) {
        result.left++;
        const busy = err instanceof ServiceError && err.code === 'recording_busy';
        if (!busy) this.logger.warn({ err, meetingId: doc._id }, 'recording sweep could not complete a recording');
      }
    }
    result.completed.legacy = await this.library.settleLegacy();
    this.onSwept(result);
    return result;
  }
}
