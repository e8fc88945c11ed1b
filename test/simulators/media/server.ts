/**
 * The simulated platforms' media server: a headless Chromium of the simulator's own (never the
 * bot's, so that what a bench measures in the bot's processes is receiving, not sending),
 * launched on the first call that needs it (cameras on, or a page in a call with audio) and
 * closed with the simulator. Its one page serves every session of every meeting: video-page.js
 * sends the cameras (a VP8 track per camera), audio-page.js the call's sound (Opus tracks that
 * utterances play into). What the page has to say on its own (offers of a renegotiation it
 * starts, an utterance played, an audio event) comes back through one exposed function, handed
 * to `onAudio`.
 */
import { readFileSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';

const PAGE_SOURCES = ['./peer-page.js', './video-page.js', './audio-page.js'].map((file) =>
  readFileSync(new URL(file, import.meta.url), 'utf8'),
);

export interface SenderStats {
  framesEncoded: number;
  framesSent: number;
  bytesSent: number;
  /** Streams that sent a frame, and the largest frame size sent. */
  streams: number;
  width: number;
  height: number;
  /** Cameras the bot page is subscribed to now. */
  sending: number;
}

export interface OpenedSession {
  sdp: string;
  /** Which participant's camera each offered m-line (mid) carries. */
  names: Array<{ mid: string | null; name: string }>;
}

/** How a bot page receives the call's audio: its platform's tracks, and its page load's draw (AudioVariation). */
export interface AudioSessionConfig {
  slots: number;
  mixName: string | null;
  redundant: boolean;
  copyFirst: boolean;
  tracks: 'atJoin' | 'late';
  change: 'none' | 'replaceTrack' | 'renegotiate' | 'recreateElement';
  idle: 'silence' | 'paused';
}

/** What the audio page reports of a session (audio-page.js report()). */
export type AudioMessage =
  | { session: string; type: 'offer'; sdp: string }
  | { session: string; type: 'recreate' }
  | { session: string; type: 'event'; event: string; at: number; detail?: string }
  | {
      session: string;
      type: 'played';
      id: string;
      startedAt: number;
      lateMs: number;
      slot: number;
      mid: string | null;
    };

/** An utterance for a session to play: from startAt (epoch ms), the speech `speech` (its WAV's id). */
export interface AudioPlay {
  id: string;
  speaker: string;
  startAt: number;
  speech: string;
}

/** The browser pids of the media servers running in this process (test support leaves them out of the bots' Chromium). */
const running = new Set<number>();
export const mediaServerPids = (): number[] => [...running];

export class MediaServer {
  private page: Promise<Page> | null = null;
  private browser: Browser | null = null;
  /** Speech ids whose WAV the page holds (decoded once, for every session). */
  private loaded = new Set<string>();
  onAudio: (message: AudioMessage) => void = () => {};

  private start(): Promise<Page> {
    this.page ??= (async () => {
      const executablePath = findChrome();
      if (!executablePath) throw new Error('no Chromium to run the simulated media server in');
      this.browser = await puppeteer.launch({
        executablePath,
        headless: true,
        pipe: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--mute-audio',
          // The call's AudioContext runs without a click; nobody clicks this page.
          '--autoplay-policy=no-user-gesture-required',
          '--disable-background-timer-throttling',
        ],
      });
      const pid = this.browser.process()?.pid;
      if (pid) {
        running.add(pid);
        this.browser.once('disconnected', () => running.delete(pid));
      }
      const [page] = await this.browser.pages();
      await page.exposeFunction('__mediaReport', (json: string) => this.onAudio(JSON.parse(json) as AudioMessage));
      for (const source of PAGE_SOURCES) await page.evaluate(source);
      return page;
    })();
    return this.page;
  }

  /** Starts the Chromium now, for a call about to begin (a failure shows on the first use). */
  warm(): void {
    this.start().catch(() => {
      this.page = null;
    });
  }

  // ---- video (video-page.js)

  async open(id: string, names: string[], fps: number): Promise<OpenedSession> {
    const page = await this.start();
    return page.evaluate((i, n, f) => (window as any).__sender.open(i, n, f), id, names, fps);
  }

  async answer(id: string, sdp: string): Promise<boolean> {
    const page = await this.start();
    return page.evaluate((i, s) => (window as any).__sender.answer(i, s), id, sdp);
  }

  async subscribe(id: string, count: number, width: number, height: number): Promise<string | null> {
    const page = await this.start();
    return page.evaluate((i, c, w, h) => (window as any).__sender.subscribe(i, c, w, h), id, count, width, height);
  }

  async stats(id: string): Promise<SenderStats | null> {
    if (!this.page) return null;
    const page = await this.page;
    return page.evaluate((i) => (window as any).__sender.stats(i), id);
  }

  async closeSession(id: string): Promise<void> {
    if (!this.page) return;
    const page = await this.page;
    await page.evaluate((i) => (window as any).__sender.close(i), id).catch(() => {});
  }

  // ---- audio (audio-page.js)

  /** A bot page's audio session; its first offer (if tracks come at join) arrives through onAudio. */
  async openAudio(id: string, config: AudioSessionConfig): Promise<void> {
    const page = await this.start();
    await page.evaluate((i, c) => (window as any).__audio.open(i, c), id, config);
  }

  async answerAudio(id: string, sdp: string): Promise<boolean> {
    if (!this.page) return false;
    const page = await this.page;
    return page.evaluate((i, s) => (window as any).__audio.answer(i, s), id, sdp);
  }

  /** The session plays an utterance; its WAV (`wav()`: the bytes) goes to the page the first time. */
  async playAudio(id: string, play: AudioPlay, wav: () => Promise<Buffer>): Promise<void> {
    const page = await this.start();
    if (!this.loaded.has(play.speech)) {
      const base64 = (await wav()).toString('base64');
      await page.evaluate((s, b) => (window as any).__audio.load(s, b), play.speech, base64);
      this.loaded.add(play.speech);
    }
    await page.evaluate((i, p) => (window as any).__audio.play(i, p), id, play);
  }

  /** The session ends: its sounds stop, its tracks and connection close. */
  async closeAudio(id: string): Promise<void> {
    if (!this.page) return;
    const page = await this.page;
    await page.evaluate((i) => (window as any).__audio.close(i), id).catch(() => {});
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.page = null;
    this.browser = null;
    this.loaded.clear();
    await browser?.close().catch(() => {});
  }
}
