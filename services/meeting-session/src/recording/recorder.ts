/**
 * One meeting's recording on the worker: the page's Opus batches (page-capture.ts) become Ogg
 * pages on the meeting's timeline (timeline.ts), written to the worker's spool (spool.ts) and sent
 * from there to transcript-store in order (uplink.ts), which holds them durably before it
 * answers. Storage that does not take the audio (a full disk, an unreachable bucket, a hung
 * store) costs nothing but spool space: `recording_unavailable` is raised while the audio waits,
 * and cleared once storage takes it again. Only a full spool loses audio, and the recording then
 * says where (a `spool_full` gap). A worker killed mid-meeting leaves its spool for the next
 * process, which sends it.
 *
 * The file's timeline is the meeting's from admission: a stretch without the page's audio (a page
 * reloaded, a renderer short of CPU, a full spool) is filled with silence, so an utterance sits in
 * the file at the time it was spoken. How well the page captures is its own health (`capture`,
 * warning `recording_capture_degraded`), never a state of the file.
 */
import { RECORDING_FORMAT, recordingPath, type RecordingGap, type RecordingInfo } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { OPUS_RATE } from './ogg.js';
import type { AudioBatch } from './page-capture.js';
import type { MeetingSpool } from './spool.js';
import type { RecordingSpools } from './spools.js';
import { RecordingTimeline } from './timeline.js';
import { Gaps } from './gaps.js';
import type { Uplink } from './uplink.js';
import { randomInt } from 'node:crypto';

/**
 * The page's audio over this much of the timeline is checked against the wall clock: a renderer
 * short of CPU makes fewer samples than time passes, and the file would be mostly filled silence.
 */
const CAPTURE_WINDOW_MS = 10_000;
const STARVED_BELOW = 0.8;
const RECOVERED_ABOVE = 0.95;

export type CaptureHealth = 'ok' | 'starved' | 'none';
export type RecordingWarning = 'recording_unavailable' | 'recording_capture_degraded';

export interface RecorderOptions {
  logger: Logger;
  meetingId: string;
  /** The worker's spool and uplinks. */
  spools: RecordingSpools;
  /** Storage does not take the audio (`recording_unavailable`), or the page captures too little (`recording_capture_degraded`). */
  onWarning: (warning: RecordingWarning, raised: boolean, detail: string) => void;
}

export class Recorder {
  private timeline: RecordingTimeline | null = null;
  private spool: MeetingSpool | null = null;
  private uplink: Uplink | null = null;
  private startedAt = 0;
  private capture: CaptureHealth = 'ok';
  /** The current window's samples: from the page, and filled with silence. */
  private window = { heard: 0, filled: 0 };
  private readonly gaps = new Gaps();
  /** Why the page cannot capture, said before the timeline started. */
  private captureFailed: string | null = null;
  private finishing: Promise<RecordingInfo | null | 'later'> | null = null;
  /** The finished file (null: storage holds none), once storage answered while the actor waited. */
  private outcome: RecordingInfo | null | undefined;

  constructor(private readonly options: RecorderOptions) {}

  /** The recording's timeline starts now (the bot was admitted). */
  start(at = Date.now()): void {
    if (this.timeline) return;
    const { spools, meetingId, logger } = this.options;
    const timeline = new RecordingTimeline(at, randomInt(2 ** 31));
    try {
      ({ spool: this.spool, uplink: this.uplink } = spools.open(meetingId, at, timeline.headers()));
    } catch (err) {
      logger.error({ err, meetingId }, 'the recording spool cannot be made: the meeting is not recorded');
      this.options.onWarning(
        'recording_unavailable',
        true,
        `the worker's recording spool cannot be written: ${String(err)}`,
      );
      return;
    }
    this.uplink.onStorage = (raised, detail) => this.options.onWarning('recording_unavailable', raised, detail);
    this.startedAt = at;
    this.timeline = timeline;
    this.uplink.wake();
    if (this.captureFailed !== null) this.failed(this.captureFailed);
  }

  /** One batch from the page: its packets placed on the meeting's timeline, then spooled and sent. */
  add(batch: AudioBatch): void {
    const timeline = this.timeline;
    if (!timeline || this.finishing || batch.sizes.length === 0) return;
    const atMs = this.msOf(batch.epochMs + batch.timestampsUs[0] / 1000);
    if (this.gaps.end('no_capture', atMs)) this.setCapture('ok', '');
    const mark = timeline.mark();
    const placed = timeline.add(batch);
    if (!this.write(placed.pages)) {
      // Never written, so never given an offset: the next batch that fits is reached with silence.
      timeline.rewind(mark);
      if (!this.gaps.isOpen('spool_full')) this.spoolFull();
      const seconds = batch.durationsUs.reduce((sum, us) => sum + us, 0) / 1_000_000;
      this.options.spools.metrics?.droppedForFullSpool(seconds);
      return;
    }
    if (this.gaps.end('spool_full', atMs)) {
      this.savedGaps();
      this.options.logger.info(
        { meetingId: this.options.meetingId, atMs },
        'the recording spool has room again: recording goes on',
      );
      // The silence over the hole is the spool's doing, not the page's.
      this.window = { heard: 0, filled: 0 };
      return;
    }
    this.window.heard += placed.heard;
    this.window.filled += placed.filled;
    this.checkCapture();
  }

  /** The page cannot capture at all (no encoder, the script missing): silence in the file from now, a `no_capture` gap. */
  failed(detail: string): void {
    if (!this.timeline) {
      this.captureFailed = detail;
      return;
    }
    if (this.finishing) return;
    this.gaps.start('no_capture', this.msOf(Date.now()));
    this.setCapture('none', detail);
  }

  /** The page handed over audio that could not be read between two instants (epoch ms): a gap there. */
  noteGap(reason: RecordingGap['reason'], fromEpochMs: number, toEpochMs: number): void {
    if (!this.timeline) return;
    if (this.gaps.add({ startMs: this.msOf(fromEpochMs), endMs: this.msOf(toEpochMs), reason })) this.savedGaps();
  }

  /** What the status shows: null when the meeting is not recording (yet). */
  info(): RecordingInfo | null {
    if (this.outcome !== undefined) return this.outcome;
    if (!this.timeline || !this.uplink) return null;
    const durationMs = this.durationMs;
    return {
      status: 'recording',
      format: RECORDING_FORMAT,
      bytes: this.uplink.storedBytes,
      durationMs,
      startedAt: new Date(this.startedAt).toISOString(),
      url: recordingPath(this.options.meetingId),
      gaps: this.gaps.list(durationMs),
      ...(this.finishing ? {} : { capture: this.capture }),
      pendingBytes: this.uplink.pendingBytes,
    };
  }

  /**
   * The meeting is over: the file's timeline reaches `until` (when the bot left; the last moments
   * the page did not hand over are silence) and is finished once storage holds it all. The saved
   * recording when that takes at most `waitMs`; else 'later' (the registry then hears of it and
   * emits `recording_saved`); null when nothing was recorded.
   */
  finish(until: number, waitMs: number): Promise<RecordingInfo | null | 'later'> {
    this.finishing ??= (async () => {
      const timeline = this.timeline;
      if (!timeline || !this.spool || !this.uplink) return null;
      const untilMs = Math.max(this.durationMs, this.msOf(until));
      this.gaps.end('spool_full', untilMs);
      this.gaps.end('no_capture', untilMs);
      // Silence (about 200 bytes a second of it, over a full spool's hole too): written even past the spool's limit.
      this.write(timeline.until(until), true);
      try {
        this.spool.close(this.gaps.done());
      } catch (err) {
        this.options.logger.error({ err, meetingId: this.options.meetingId }, 'the recording spool cannot be closed');
      }
      const result = await this.uplink.endWithin(waitMs);
      if (result !== 'later') this.outcome = result;
      return result;
    })();
    return this.finishing;
  }

  /** Written to the spool when it has room (or `always`), false when not; the uplink is woken. */
  private write(pages: Buffer, always = false): boolean {
    if (pages.length === 0) return true;
    if (!always && !this.options.spools.hasRoom(pages.length)) return false;
    try {
      this.spool!.write(pages, this.durationMs);
    } catch (err) {
      // ENOSPC and the like: the worker's disk is full before the spool is.
      if (!this.gaps.isOpen('spool_full'))
        this.options.logger.error({ err, meetingId: this.options.meetingId }, 'the recording spool cannot be written');
      return false;
    }
    this.uplink!.wake();
    return true;
  }

  /** The hole starts where the file ends now. */
  private spoolFull(): void {
    this.gaps.start('spool_full', this.durationMs);
    this.options.logger.warn(
      { meetingId: this.options.meetingId, atMs: this.durationMs, spooledBytes: this.options.spools.stats().bytes },
      'the recording spool is full (storage has not taken the audio for long): audio is dropped until it has room',
    );
  }

  private savedGaps(): void {
    try {
      this.spool?.setGaps(this.gaps.done());
    } catch (err) {
      this.options.logger.error({ err, meetingId: this.options.meetingId }, 'the recording spool cannot keep its gaps');
    }
  }

  /** Once a window of the timeline is full: did the page hand over enough of it? */
  private checkCapture(): void {
    const { heard, filled } = this.window;
    if (((heard + filled) * 1000) / OPUS_RATE < CAPTURE_WINDOW_MS) return;
    this.window = { heard: 0, filled: 0 };
    const share = heard / (heard + filled);
    if (share < STARVED_BELOW) {
      this.setCapture(
        'starved',
        `the bot's browser captured ${Math.round(share * 100)}% of the last ${CAPTURE_WINDOW_MS / 1000} s of audio (short of CPU?); the rest is silence in the file`,
      );
    } else if (share > RECOVERED_ABOVE) {
      this.setCapture('ok', '');
    }
  }

  /** `recording_capture_degraded` raised with the first trouble, cleared when the capture is ok again. */
  private setCapture(health: CaptureHealth, detail: string): void {
    const before = this.capture;
    if (before === health) return;
    this.capture = health;
    if (before === 'ok') this.options.onWarning('recording_capture_degraded', true, detail);
    else if (health === 'ok') this.options.onWarning('recording_capture_degraded', false, '');
  }

  private msOf(epochMs: number): number {
    return Math.max(0, Math.round(epochMs - this.startedAt));
  }

  private get durationMs(): number {
    return Math.round(((this.timeline?.samples ?? 0) * 1000) / OPUS_RATE);
  }
}
