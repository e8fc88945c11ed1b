/**
 * The page driver's side of the audio capture (recording/page-capture.ts): the bindings and the
 * script installed before the platform's, the capture started once in the call (and again after a
 * reload), and stopped with the page's last batch handed over.
 *
 * The recording and the transcription's tap are two parts that fail apart: a page that cannot
 * record is reported once (`audioFailed`), a tap that cannot start (`pcmFailed`), and again when
 * it runs after all (`pcmFailed(null)`: the page tries it again as tracks come). Slices that
 * cannot be read are skipped, the recording read on after them (`audioSkipped`, once a burst).
 */
import type { Frame, Page } from 'puppeteer-core';
import {
  AUDIO_BINDING,
  captureScript,
  PCM_BINDING,
  type PcmMessage,
  type RecorderError,
  type RecordingSlice,
  type TapState,
} from '../recording/page-capture.js';
import { WebmBatches } from '../recording/webm-batches.js';
import type { DriverListener, JoinTarget } from './driver.js';
import { bindPage } from './page-bindings.js';

/** Opus at 32 kbit/s (about 14 MB an hour), handed over about once a second. */
const CAPTURE = { bitrate: 32_000, batchMs: 1_000 };
const STOP_WAIT_MS = 1_000;

type AudioListener = Pick<DriverListener, 'audio' | 'audioFailed' | 'audioSkipped' | 'pcm' | 'pcmFailed'>;

export class PageAudio {
  private recordingFailed = false;
  /** The tap's failure was reported, and not its recovery. */
  private tapFailed = false;
  private readonly webm = new WebmBatches((skip) => this.live()?.audioSkipped(skip));

  constructor(
    private readonly target: Pick<JoinTarget, 'recordAudio' | 'transcribeAudio'>,
    /** The listener while the bot is live in the call, else null (audio then counts for nothing). */
    private readonly live: () => AudioListener | null,
    /** The frame the platform's client (and so its peer connections) is in: the top page or an iframe. */
    private readonly clientFrame: (page: Page) => Promise<Frame> = async (page) => page.mainFrame(),
    /** The id of the track the platform sends its one mix on, where it names it (PlatformAdapter.mixTrack). */
    private readonly mixTrack?: RegExp,
  ) {}

  /** Whether the page's audio is captured: for a recording, for transcription, or both. */
  get wanted(): boolean {
    return Boolean(this.target.recordAudio || this.target.transcribeAudio);
  }

  /** Before the page opens anything: the bindings, and the script ahead of the platform's own (in every frame's new document). */
  async install(page: Page, inCall: () => boolean): Promise<void> {
    if (!this.wanted) return;
    const why = (error: unknown) => (error instanceof Error ? error.message : String(error));
    // Each part's binding fails on its own.
    if (this.target.transcribeAudio) {
      await bindPage(page, { [PCM_BINDING]: (json) => this.heardPcm(json) }, (error) =>
        this.tapChanged(`the page's audio for transcription could not be read: ${why(error)}`),
      );
    }
    if (this.target.recordAudio) {
      await bindPage(page, { [AUDIO_BINDING]: (json) => this.heard(json) }, (error) =>
        this.failRecording(`the page's recording could not be read: ${why(error)}`),
      );
    }
    // Before the platform's scripts: its peer connections are made with the hooked prototype.
    await page.evaluateOnNewDocument(captureScript({ ...CAPTURE, mixTrack: this.mixTrack }));
    // A page reloaded in the call starts a capture of its own (the recorder fills the gap).
    page.on('load', () => {
      if (inCall()) void this.start(page);
    });
  }

  /** In the call: the capture starts (each part on its own). */
  async start(page: Page): Promise<void> {
    if (!this.wanted) return;
    const what = JSON.stringify({
      record: Boolean(this.target.recordAudio),
      transcribe: Boolean(this.target.transcribeAudio),
    });
    const answer: unknown = await this.clientFrame(page)
      .then((frame) => frame.evaluate(`window.__ntCapture ? window.__ntCapture.start(${what}) : { page: null }`))
      .catch((error: unknown) => ({
        page: `the page did not answer: ${error instanceof Error ? error.message : String(error)}`,
      }));
    if (answer === null || answer === undefined) return;
    if (typeof answer === 'string') return this.failRecording(answer);
    // Nothing of the page's capture runs: both parts fail.
    const none = (answer as { page: string | null }).page ?? 'the capture script is not in the page';
    if (this.target.recordAudio) this.failRecording(none);
    if (this.target.transcribeAudio) this.tapChanged(none);
  }

  /** Leaving: the audio up to here is the recording's end, so the page's last batch is taken first. */
  async stop(page: Page): Promise<void> {
    if (!this.wanted) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.clientFrame(page).then((frame) => frame.evaluate('window.__ntCapture && window.__ntCapture.stop()')),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS))),
    ])
      .catch(() => {})
      .finally(() => clearTimeout(timer));
    this.webm.end();
  }

  private heard(json: string): void {
    let slice: RecordingSlice | RecorderError;
    try {
      slice = JSON.parse(json) as RecordingSlice | RecorderError;
    } catch {
      // A slice mangled on its way: the next one's number says it is missing (a gap, reported).
      return;
    }
    if ('error' in slice) {
      if (!slice.restarted) return this.failRecording(`the audio encoder failed: ${slice.error}`);
      return this.webm.restarted(`the audio encoder failed (a new one took over): ${slice.error}`);
    }
    try {
      // Every slice is demuxed (the stream's header comes first), the audio counted only while live.
      const batch = this.webm.take(slice);
      if (batch) this.live()?.audio(batch);
    } catch (error) {
      this.failRecording(
        `the page's recording could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private heardPcm(json: string): void {
    let message: PcmMessage | TapState;
    try {
      message = JSON.parse(json) as PcmMessage | TapState;
    } catch {
      // A chunk mangled on its way: the transcriber sees a gap in its track's frames.
      return;
    }
    if (!('tap' in message)) return this.live()?.pcm(message);
    this.tapChanged(message.tap === 'failed' ? message.detail : null);
  }

  private failRecording(detail: string): void {
    if (this.recordingFailed) return;
    this.recordingFailed = true;
    this.live()?.audioFailed(detail);
  }

  /** The tap cannot start (why), or runs (null): each change said once. */
  private tapChanged(detail: string | null): void {
    if (this.tapFailed === (detail !== null)) return;
    this.tapFailed = detail !== null;
    this.live()?.pcmFailed(detail);
  }
}
