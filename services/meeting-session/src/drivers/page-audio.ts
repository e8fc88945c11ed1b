/**
 * The page driver's side of the audio capture (recording/page-capture.ts): the bindings and the
 * script installed before the platform's, the capture started once in the call (and again after a
 * reload), and stopped with the page's last batch handed over. A page that cannot capture is
 * reported once.
 */
import type { Frame, Page } from 'puppeteer-core';
import {
  AUDIO_BINDING,
  captureScript,
  PCM_BINDING,
  type PcmMessage,
  type RecordingSlice,
} from '../recording/page-capture.js';
import { WebmBatches } from '../recording/webm-batches.js';
import type { DriverListener, JoinTarget } from './driver.js';
import { bindPage, type BindingHandlers } from './page-bindings.js';

/** Opus at 32 kbit/s (about 14 MB an hour), handed over about once a second. */
const CAPTURE = { bitrate: 32_000, batchMs: 1_000 };
const STOP_WAIT_MS = 1_000;

export class PageAudio {
  private failed = false;
  private readonly webm = new WebmBatches();

  constructor(
    private readonly target: Pick<JoinTarget, 'recordAudio' | 'transcribeAudio'>,
    /** The listener while the bot is live in the call, else null (audio then counts for nothing). */
    private readonly live: () => Pick<DriverListener, 'audio' | 'audioFailed' | 'pcm'> | null,
    /** The frame the platform's client (and so its peer connections) is in: the top page or an iframe. */
    private readonly clientFrame: (page: Page) => Promise<Frame> = async (page) => page.mainFrame(),
  ) {}

  /** Whether the page's audio is captured: for a recording, for transcription, or both. */
  get wanted(): boolean {
    return Boolean(this.target.recordAudio || this.target.transcribeAudio);
  }

  /** Before the page opens anything: the bindings, and the script ahead of the platform's own (in every frame's new document). */
  async install(page: Page, inCall: () => boolean): Promise<void> {
    if (!this.wanted) return;
    const handlers: BindingHandlers = {};
    if (this.target.transcribeAudio) handlers[PCM_BINDING] = (json) => this.heardPcm(json);
    if (this.target.recordAudio) handlers[AUDIO_BINDING] = (json) => this.heard(json);
    await bindPage(page, handlers, (error) =>
      this.fail(`the page's audio could not be read: ${error instanceof Error ? error.message : String(error)}`),
    );
    // Before the platform's scripts: its peer connections are made with the hooked prototype.
    await page.evaluateOnNewDocument(captureScript(CAPTURE));
    // A page reloaded in the call starts a capture of its own (the recorder fills the gap).
    page.on('load', () => {
      if (inCall()) void this.start(page);
    });
  }

  /** In the call: the capture starts. */
  async start(page: Page): Promise<void> {
    if (!this.wanted) return;
    const what = JSON.stringify({
      record: Boolean(this.target.recordAudio),
      transcribe: Boolean(this.target.transcribeAudio),
    });
    const failure = await this.clientFrame(page)
      .then((frame) =>
        frame.evaluate(
          `window.__ntCapture ? window.__ntCapture.start(${what}) : "the capture script is not in the page"`,
        ),
      )
      .catch((error: unknown) => `the page did not answer: ${error instanceof Error ? error.message : String(error)}`);
    if (typeof failure === 'string') this.fail(failure);
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
  }

  private heard(json: string): void {
    const slice = JSON.parse(json) as RecordingSlice | { error: string };
    if ('error' in slice) return this.fail(`the audio encoder failed: ${slice.error}`);
    try {
      // Every slice is demuxed (the stream's header comes first), the audio counted only while live.
      const batch = this.webm.take(slice);
      if (batch) this.live()?.audio(batch);
    } catch (error) {
      this.fail(`the page's recording could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private heardPcm(json: string): void {
    this.live()?.pcm(JSON.parse(json) as PcmMessage);
  }

  private fail(detail: string): void {
    if (this.failed) return;
    this.failed = true;
    this.live()?.audioFailed(detail);
  }
}
