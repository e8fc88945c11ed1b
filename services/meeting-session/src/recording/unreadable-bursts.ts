/**
 * Audio the page handed over that could not be read (webm-batches.ts), gathered into bursts: a
 * run of bad slices is one span of the meeting, reported once, when audio is read again (or the
 * stream ends), so that a mangled stretch costs one log line and one gap, not one per slice. A
 * burst that goes on is reported every REPORT_EVERY_MS all the same, so that the operator hears
 * of it within seconds; the next report carries on where that one ended.
 */
import type { SkippedAudio } from './page-capture.js';

const REPORT_EVERY_MS = 10_000;

interface Burst {
  /** Epoch ms where the audio read before it ends. */
  fromMs: number;
  /** Epoch ms of the slice that began it. */
  openedAt: number;
  slices: number;
  detail: string;
}

export class UnreadableBursts {
  private burst: Burst | null = null;

  constructor(private readonly report: (skip: SkippedAudio) => void) {}

  /**
   * `slices` slices taken at `at` (epoch ms) could not be read whole, or never came (zero: bytes
   * within one slice): the burst goes on, or begins where the audio read so far ends (`fromMs`).
   */
  unreadable(detail: string, at: number, fromMs: number, slices: number): void {
    this.burst ??= { fromMs, openedAt: at, slices: 0, detail };
    this.burst.slices += slices;
    if (at - this.burst.openedAt < REPORT_EVERY_MS) return;
    this.end(at);
    this.burst = { fromMs: at, openedAt: at, slices: 0, detail };
  }

  /** Audio is read again from `toMs` (epoch ms): the burst under way is over. */
  resumed(toMs: number): void {
    this.end(toMs);
  }

  /** The stream ends (stopped, or replaced by a page's reload) at `atMs`: a burst under way ends there. */
  end(atMs: number): void {
    const burst = this.burst;
    this.burst = null;
    if (!burst) return;
    const from = Math.round(Math.min(burst.fromMs, atMs));
    this.report({
      fromEpochMs: from,
      toEpochMs: Math.max(from, Math.round(atMs)),
      slices: Math.max(1, burst.slices),
      detail: burst.detail,
    });
  }
}
