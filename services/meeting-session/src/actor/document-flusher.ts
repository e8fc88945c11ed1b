/**
 * Asks transcript-store to write the meeting's document: every interval while there are new
 * segments (as `in_progress`), and once at the end (`completed`). A flush runs beside the
 * mailbox, not in it, so a slow write never holds back live events; flushes never overlap, so
 * the final `completed` write cannot be overtaken by an older `in_progress` one.
 */
import { routes } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';

export interface FlusherOptions {
  bus: Bus;
  logger: Logger;
  meetingId: string;
  /** False when the meeting was started with saveTranscript false: no document, ever. */
  enabled: boolean;
  participants: () => string[];
  /** The bot account's name for the front matter, or null (a guest). */
  signedInAs: () => string | null;
  onSaved: (saved: { documentPath: string; segmentsWritten: number; totalSegments: number }) => void;
}

export class DocumentFlusher {
  private dirty = false;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: FlusherOptions) {}

  markDirty(): void {
    this.dirty = true;
  }

  startPeriodic(intervalMs: number): void {
    if (!this.options.enabled || this.timer) return;
    // Each meeting's period is its own, within ±10%: meetings started together (a worker's restart,
    // a scheduled batch) drift apart instead of all asking transcript-store to write and index at once.
    const period = Math.round(intervalMs * (0.9 + 0.2 * Math.random()));
    this.timer = setInterval(() => {
      if (this.dirty && !this.running) void this.flush('in_progress');
    }, period);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The last write, after any periodic one still running. */
  async finalFlush(): Promise<void> {
    this.stop();
    if (!this.options.enabled) return;
    while (this.running) await this.running;
    await this.flush('completed');
  }

  private flush(status: 'in_progress' | 'completed'): Promise<void> {
    this.dirty = false;
    const run = (async () => {
      try {
        const saved = await call(
          this.options.bus,
          routes.transcripts.flush,
          {
            meetingId: this.options.meetingId,
            status,
            participants: this.options.participants(),
            signedInAs: this.options.signedInAs(),
          },
          { timeoutMs: 30_000 },
        );
        // null when transcript-store keeps no document for the meeting.
        if (saved) this.options.onSaved(saved);
      } catch (err) {
        if (status === 'in_progress') this.dirty = true; // try again next interval
        this.options.logger.warn({ err, meetingId: this.options.meetingId, status }, 'document flush failed');
      }
    })();
    this.running = run.finally(() => {
      this.running = null;
    });
    return this.running;
  }
}
