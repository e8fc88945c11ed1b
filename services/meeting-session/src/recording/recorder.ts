/**
 * One meeting's recording on the worker: the page's Opus batches (page-capture.ts) become Ogg
 * pages, appended in order to transcript-store, which holds them durably before it answers. The
 * worker keeps nothing but the bytes in flight, so a worker killed mid-meeting loses at most the
 * batch it was sending (about a second) and leaves a playable file.
 *
 * The file's timeline is the meeting's from admission (timeline.ts): a gap in the page's audio (a
 * page reloaded, a renderer short of CPU) is filled with silence, so an utterance sits in the file
 * at the time it was spoken. Storage that refuses the audio (a full disk, an unreachable bucket) never
 * stops the meeting: the recorder raises `recording_unavailable`, keeps capturing, and clears the
 * warning once an append succeeds again.
 */
import { randomInt } from 'node:crypto';
import {
  RECORDING_FORMAT,
  recordingPath,
  routes,
  ServiceError,
  type RecordingGap,
  type RecordingInfo,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import { OPUS_RATE } from './ogg.js';
import type { AudioBatch } from './page-capture.js';
import { RecordingTimeline } from './timeline.js';
/**
 * The page's audio over this much of the timeline is checked against the wall clock: a renderer
 * short of CPU makes fewer samples than time passes, and the file would be mostly filled silence.
 */
const CAPTURE_WINDOW_MS = 10_000;
const STARVED_BELOW = 0.8;
const RECOVERED_ABOVE = 0.95;
/** An append is retried this often (bus timeouts, a restarting transcript-store) before the warning. */
const APPEND_ATTEMPTS = 3;
const RETRY_MS = 300;

type Trouble = 'storage' | 'capture' | 'page';

export interface RecorderOptions {
  bus: Bus;
  logger: Logger;
  meetingId: string;
  /** Storage refused the audio (raised) or takes it again (cleared). */
  onWarning: (raised: boolean, detail: string) => void;
}

export class Recorder {
  private timeline: RecordingTimeline | null = null;
  /** The file's first bytes: sent again in front of the audio if storage lost them. */
  private headers: Buffer = Buffer.alloc(0);
  private startedAt = 0;
  private stored = 0;
  /** Why the recording is not whole now: storage refuses it, the page captures too little, or none. */
  private readonly troubles = new Map<Trouble, string>();
  /** The current window's samples: from the page, and filled with silence. */
  private window = { heard: 0, filled: 0 };
  /** After a failed append the store's size is read again before the next one. */
  private resync = false;
  private everFailed = false;
  private finished: Promise<RecordingInfo | null> | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: RecorderOptions) {}

  /** The recording's timeline starts now (the bot was admitted). */
  start(at = Date.now()): void {
    if (this.timeline) return;
    this.startedAt = at;
    this.timeline = new RecordingTimeline(at, randomInt(2 ** 31));
    this.headers = this.timeline.headers();
    this.enqueue(this.headers);
  }

  /** One batch from the page: each packet placed on the meeting's timeline, then stored. */
  add(batch: AudioBatch): void {
    if (!this.timeline || this.finished) return;
    const { pages, heard, filled } = this.timeline.add(batch);
    this.window.heard += heard;
    this.window.filled += filled;
    this.enqueue(pages);
    this.checkCapture();
  }

  /** The page cannot capture at all (no encoder, the script missing): the recording is not whole. */
  failed(detail: string): void {
    this.everFailed = true;
    this.setTrouble('page', detail);
  }

  /**
   * STUB for issue 50 item 5 (the page's capture): audio the page made that is not in the file
   * (`reason`, from and to in epoch ms). The recorder's owner replaces it with the gaps it keeps.
   */
  noteGap(reason: RecordingGap['reason'], fromEpochMs: number, toEpochMs: number): void {
    void [reason, fromEpochMs, toEpochMs];
  }

  /** What the status shows: null when the meeting is not recording (yet). */
  info(): RecordingInfo | null {
    if (!this.timeline) return null;
    return {
      status: this.troubles.size > 0 ? 'unavailable' : 'recording',
      format: RECORDING_FORMAT,
      bytes: this.stored,
      durationMs: this.durationMs,
      startedAt: new Date(this.startedAt).toISOString(),
      url: recordingPath(this.options.meetingId),
    };
  }

  /**
   * Stores what is queued and marks the file complete; the saved recording, or null. `until`: when
   * the bot left the call; the file's timeline reaches it, the last moments the page did not hand
   * over being silence.
   */
  finish(until?: number): Promise<RecordingInfo | null> {
    this.finished ??= (async () => {
      const timeline = this.timeline;
      if (!timeline) return null;
      if (until !== undefined) this.enqueue(timeline.until(until));
      await this.queue;
      try {
        return await call(this.options.bus, routes.recordings.finish, {
          meetingId: this.options.meetingId,
          status: this.everFailed ? 'unavailable' : 'saved',
        });
      } catch (err) {
        this.options.logger.warn({ err, meetingId: this.options.meetingId }, 'could not finish the recording');
        return null;
      }
    })();
    return this.finished;
  }

  /** Once a window of the timeline is full: did the page hand over enough of it? */
  private checkCapture(): void {
    const { heard, filled } = this.window;
    if (((heard + filled) * 1000) / OPUS_RATE < CAPTURE_WINDOW_MS) return;
    this.window = { heard: 0, filled: 0 };
    const share = heard / (heard + filled);
    if (share < STARVED_BELOW) {
      this.everFailed = true;
      this.setTrouble(
        'capture',
        `the bot's browser captured ${Math.round(share * 100)}% of the last ${CAPTURE_WINDOW_MS / 1000} s of audio (short of CPU?); the rest is silence in the file`,
      );
    } else if (share > RECOVERED_ABOVE) {
      this.setTrouble('capture', null);
    }
  }

  /** One warning for both troubles: raised with the first, cleared with the last. */
  private setTrouble(kind: Trouble, detail: string | null): void {
    const before = this.troubles.size;
    if (detail === null) this.troubles.delete(kind);
    else if (this.troubles.has(kind)) return;
    else this.troubles.set(kind, detail);
    if (before === 0 && this.troubles.size > 0) this.options.onWarning(true, detail!);
    if (before > 0 && this.troubles.size === 0) this.options.onWarning(false, '');
  }

  private get durationMs(): number {
    return Math.round(((this.timeline?.samples ?? 0) * 1000) / OPUS_RATE);
  }

  private enqueue(bytes: Buffer): void {
    const durationMs = this.durationMs;
    this.queue = this.queue.then(() => this.append(bytes, durationMs));
  }

  private async append(bytes: Buffer, durationMs: number): Promise<void> {
    const { bus, meetingId } = this.options;
    let lastError: unknown = null;
    for (let attempt = 1; attempt <= APPEND_ATTEMPTS; attempt++) {
      try {
        if (this.resync) {
          this.stored = (await call(bus, routes.recordings.get, { meetingId }))?.bytes ?? 0;
          this.resync = false;
        }
        // A file that lost its headers would not play: they go first whatever comes.
        if (this.stored === 0 && bytes !== this.headers) bytes = Buffer.concat([this.headers, bytes]);
        const reply = await call(bus, routes.recordings.append, {
          meetingId,
          startedAt: new Date(this.startedAt).toISOString(),
          offset: this.stored,
          data: bytes.toString('base64'),
          durationMs,
        });
        this.stored = reply.bytes;
        this.setTrouble('storage', null);
        return;
      } catch (err) {
        lastError = err;
        this.resync = true;
        // Storage said no (full, refused): retrying the same bytes now would only say it again.
        if (err instanceof ServiceError && !err.retryable) break;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS * attempt));
      }
    }
    this.everFailed = true;
    this.setTrouble('storage', lastError instanceof Error ? lastError.message : String(lastError));
  }
}
