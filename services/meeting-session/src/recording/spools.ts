/**
 * A worker's recordings on their way to storage: one spool folder (spool.ts) and one uplink per
 * meeting (uplink.ts), which outlives the meeting's actor when storage is behind. At start the
 * worker sends what a previous process left (killed, or stopped before storage took it all) and
 * finishes those files; a file finished once its actor stopped waiting is reported to the
 * registry, which appends its `recording_saved` to the meeting's event log.
 */
import type { RecordingInfo } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import { MeetingSpool, Spool } from './spool.js';
import { backoffMs, Uplink } from './uplink.js';

export interface RecordingMetrics {
  /** An append attempt failed and is tried again. */
  appendRetry(): void;
  /** Seconds of the meeting's audio dropped because the spool was full. */
  droppedForFullSpool(seconds: number): void;
}

export interface RecordingSpoolsOptions {
  dir: string;
  maxBytes: number;
  /** One append attempt's wait (RECORDING_APPEND_TIMEOUT_MS). */
  appendTimeoutMs: number;
  bus: Bus;
  logger: Logger;
  metrics?: RecordingMetrics;
  /** Tells the registry of a file finished after its actor stopped waiting (throws: asked again). */
  reportSaved(meetingId: string, info: RecordingInfo): Promise<void>;
}

export interface OpenRecording {
  spool: MeetingSpool;
  uplink: Uplink;
}

export class RecordingSpools {
  private readonly spool: Spool;
  private readonly uplinks = new Map<string, Uplink>();
  private stopped = false;
  private readonly idle = new Set<() => void>();

  constructor(private readonly options: RecordingSpoolsOptions) {
    this.spool = new Spool(options.dir, options.maxBytes);
  }

  get metrics(): RecordingMetrics | undefined {
    return this.options.metrics;
  }

  /** Bytes the spool holds, and the meetings with audio storage has not taken yet. */
  stats(): { bytes: number; meetings: number } {
    let meetings = 0;
    for (const uplink of this.uplinks.values()) if (uplink.pendingBytes > 0) meetings++;
    return { bytes: this.spool.bytes, meetings };
  }

  hasRoom(bytes: number): boolean {
    return this.spool.hasRoom(bytes);
  }

  /** Whether this worker's disk holds audio of the meeting that storage has not taken yet. */
  holds(meetingId: string): boolean {
    return this.spool.has(meetingId);
  }

  /** A meeting's recording starts now, with the file's first pages (a spool that cannot hold them throws, and is gone). */
  open(meetingId: string, startedAt: number, headers: Buffer): OpenRecording {
    const spool = this.spool.create(meetingId, startedAt);
    try {
      spool.write(headers, 0);
    } catch (err) {
      spool.remove();
      throw err;
    }
    return { spool, uplink: this.track(spool) };
  }

  /**
   * Sends what a previous process left. A meeting that was not over when that process died is
   * finished with `worker_lost` from where its spool ends to now (its meeting ended meanwhile).
   */
  resumeLeftovers(): number {
    const { spools, unreadable } = this.spool.leftovers();
    for (const { folder, error } of unreadable)
      this.options.logger.error(
        { folder, error },
        'a recording spool left by a previous process cannot be read; left as it is',
      );
    for (const spool of spools) {
      const { meetingId, startedAt, ended } = spool.meta;
      this.options.logger.info(
        { meetingId, pendingBytes: spool.pendingBytes, seconds: Math.round(spool.pendingMs / 1000), ended },
        'sending the recording audio a previous process spooled',
      );
      this.track(spool).resume(Math.max(0, Date.now() - startedAt));
    }
    return spools.length;
  }

  /** Resolves once every uplink finished, or after `ms`. */
  async drained(ms: number): Promise<void> {
    if (this.uplinks.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => {};
    await new Promise<void>((resolve) => {
      wake = resolve;
      this.idle.add(wake);
      timer = setTimeout(resolve, ms);
    });
    this.idle.delete(wake);
    clearTimeout(timer);
  }

  /** The process stops: what is not sent stays on disk for the next one. */
  stop(): void {
    this.stopped = true;
    for (const uplink of this.uplinks.values()) uplink.stop();
    this.uplinks.clear();
  }

  private track(spool: MeetingSpool): Uplink {
    const uplink = new Uplink(spool, {
      bus: this.options.bus,
      logger: this.options.logger,
      timeoutMs: this.options.appendTimeoutMs,
      onRetry: () => this.options.metrics?.appendRetry(),
      finished: (meetingId, info, heard) => {
        this.untrack(meetingId);
        if (info && !heard) void this.report(meetingId, info);
      },
    });
    this.uplinks.set(spool.meetingId, uplink);
    return uplink;
  }

  private untrack(meetingId: string): void {
    if (!this.uplinks.delete(meetingId) || this.uplinks.size > 0) return;
    for (const wake of [...this.idle]) wake();
  }

  private async report(meetingId: string, info: RecordingInfo): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.options.reportSaved(meetingId, info);
        return;
      } catch (err) {
        if (attempt === 1)
          this.options.logger.warn(
            { err, meetingId },
            'could not tell the registry the recording is saved; trying again',
          );
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
      }
    }
  }
}
