/**
 * Real MediaRecorder output for the recording tests: headless Chromium (as the bots run it) records
 * a few seconds of a WebAudio graph like the capture's mix (48 kHz, one channel, a silent source
 * keeping it running), with tone bursts at known instants, and hands each slice over as the
 * recorder cut it, with the page's clock when it was taken.
 */
import { readFileSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';
import { chromeArgs } from '../../src/drivers/browser.js';
import { processTree } from '../../src/drivers/process-tree.js';
import type { RecordingSlice } from '../../src/recording/page-capture.js';

export interface Recorded {
  /** The slices, in order, as the capture script hands them over. */
  slices: RecordingSlice[];
  /** Epoch ms just before and after MediaRecorder.start(). */
  startCalledAt: number;
  startReturnedAt: number;
  /** Tone bursts, ms from the recorder's start (on the audio graph's clock). */
  tones: Array<{ fromMs: number; toMs: number }>;
}

function chromiumMissing(): string | null {
  return findChrome(process.env.CHROME_PATH) ? null : 'no Chromium (set CHROME_PATH or install chromium)';
}

function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: findChrome(process.env.CHROME_PATH)!,
    headless: true,
    pipe: true,
    args: chromeArgs([]),
  });
}

/**
 * A suite's headless Chromium, launched in a hook registered here (before the suite's own) and
 * closed after it; without one the suite is skipped, saying why. Call it inside `describe`.
 */
export function chromiumPerSuite(): () => Browser {
  let browser: Browser | null = null;
  before(async function () {
    const missing = chromiumMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      return this.skip();
    }
    browser = await launchChromium();
  });
  after(() => browser?.close());
  return () => browser!;
}

/** The browser's renderer processes (where the page's audio graph and MediaRecorder run). */
function renderers(browser: Browser): number[] {
  const root = browser.process()?.pid;
  return (root ? processTree(root) : []).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
    } catch {
      return false;
    }
  });
}

/**
 * Records `seconds` of the graph with tone bursts at `tones` (ms from the start), in slices of
 * `sliceMs`. `stall`: the renderers are stopped (SIGSTOP) for a while, as a machine short of CPU
 * stops them, about `atMs` after the recording starts.
 */
export async function recordTones(
  browser: Browser,
  options: {
    mimeType: string;
    seconds: number;
    sliceMs: number;
    tones: Array<{ fromMs: number; toMs: number }>;
    stall?: { atMs: number; forMs: number };
  },
): Promise<Recorded> {
  const page = await browser.newPage();
  let stall: NodeJS.Timeout | undefined;
  let stopped: number[] = [];
  const resume = () => stopped.splice(0).forEach((pid) => process.kill(pid, 'SIGCONT'));
  try {
    const { stall: stallAt } = options;
    if (stallAt) {
      stall = setTimeout(() => {
        stopped = renderers(browser);
        stopped.forEach((pid) => process.kill(pid, 'SIGSTOP'));
        stall = setTimeout(resume, stallAt.forMs);
      }, stallAt.atMs);
    }
    const slices: RecordingSlice[] = [];
    await page.exposeFunction('__slice', (json: string) => slices.push(JSON.parse(json) as RecordingSlice));
    const times = await page.evaluate(async (o) => {
      const ctx = new AudioContext({ sampleRate: 48000, latencyHint: 'playback' });
      const dest = ctx.createMediaStreamDestination();
      dest.channelCount = 1;
      dest.channelCountMode = 'explicit';
      const idle = ctx.createConstantSource();
      idle.offset.value = 0;
      idle.connect(dest);
      idle.start();
      const tone = ctx.createOscillator();
      const gain = ctx.createGain();
      gain.gain.value = 0;
      tone.connect(gain).connect(dest);
      tone.start();
      await ctx.resume();
      const recorder = new MediaRecorder(dest.stream, { mimeType: o.mimeType, audioBitsPerSecond: 32000 });
      const stream = `test-${Date.now()}`;
      let seq = 0;
      let sending = Promise.resolve();
      recorder.ondataavailable = (event) => {
        const at = Date.now();
        const n = seq++;
        sending = sending.then(async () => {
          const bytes = new Uint8Array(await event.data.arrayBuffer());
          let binary = '';
          for (const byte of bytes) binary += String.fromCharCode(byte);
          const slice = { stream, seq: n, at, data: btoa(binary), tracks: 1 };
          await (window as unknown as { __slice: (json: string) => Promise<void> }).__slice(JSON.stringify(slice));
        });
      };
      const stopped = new Promise((resolve) => (recorder.onstop = resolve));
      const startCalledAt = Date.now();
      const t0 = ctx.currentTime;
      recorder.start(o.sliceMs);
      const startReturnedAt = Date.now();
      for (const t of o.tones) {
        gain.gain.setValueAtTime(0.3, t0 + t.fromMs / 1000);
        gain.gain.setValueAtTime(0, t0 + t.toMs / 1000);
      }
      await new Promise((resolve) => setTimeout(resolve, o.seconds * 1000));
      recorder.stop();
      await stopped;
      await sending;
      await ctx.close();
      return { startCalledAt, startReturnedAt };
    }, options);
    return { slices, tones: options.tones, ...times };
  } finally {
    clearTimeout(stall);
    resume();
    await page.close();
  }
}
