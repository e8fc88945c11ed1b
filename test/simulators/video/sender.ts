/**
 * The simulated platforms' video media server: a headless Chromium of the simulator's own (never
 * the bot's, so that what a bench measures in the bot's processes is receiving, not sending),
 * launched on the first call that has cameras on and closed with the simulator. Its one page runs
 * sender-page.js: a session per bot page, a VP8 track per camera (see there).
 */
import { readFileSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';

const PAGE_SOURCE = readFileSync(new URL('./sender-page.js', import.meta.url), 'utf8');

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

export class VideoSender {
  private page: Promise<Page> | null = null;
  private browser: Browser | null = null;

  private start(): Promise<Page> {
    this.page ??= (async () => {
      const executablePath = findChrome();
      if (!executablePath) throw new Error('no Chromium to send the simulated cameras from');
      this.browser = await puppeteer.launch({
        executablePath,
        headless: true,
        pipe: true,
        args: ['--no-sandbox', '--disable-gpu', '--mute-audio', '--disable-background-timer-throttling'],
      });
      const [page] = await this.browser.pages();
      await page.evaluate(PAGE_SOURCE);
      return page;
    })();
    return this.page;
  }

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

  /** The sender's Chromium pid (benches leave it out of the bot's processes). */
  pid(): number | null {
    return this.browser?.process()?.pid ?? null;
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.page = null;
    this.browser = null;
    await browser?.close().catch(() => {});
  }
}
