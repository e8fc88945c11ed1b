/**
 * The level of every remote audio track a page receives, heard the way the bot is to record it: a
 * hook installed before the platform's scripts (evaluateOnNewDocument) wraps RTCPeerConnection and
 * measures each remote audio track the page receives ('track' events) on the audio thread (an
 * AudioWorklet: 20 ms levels, unthrottled in background pages).
 */
import type { Page } from 'puppeteer-core';

/** Levels are of 20 ms blocks. */
export const BLOCK_MS = 20;

export interface HeardTrack {
  id: string;
  addedAt: number;
  endedAt: number | null;
  /** [epoch ms the audio thread took a 20 ms block in, RMS of the block]. */
  levels: Array<[number, number]>;
}
export interface Heard {
  tracks: HeardTrack[];
}

/**
 * Runs in every document before its own scripts: RTCPeerConnection wrapped so that every remote
 * audio track is measured, as the bot's recorder will take them.
 */
function hookRemoteAudio(): void {
  const NativePeerConnection = window.RTCPeerConnection;
  const heard: Heard = { tracks: [] };
  (window as unknown as { __heard: Heard }).__heard = heard;
  const levels = `class Level extends AudioWorkletProcessor {
    constructor() { super(); this.sum = 0; this.frames = 0; }
    process(inputs) {
      const samples = inputs[0] && inputs[0][0];
      if (samples) for (let i = 0; i < samples.length; i++) this.sum += samples[i] * samples[i];
      this.frames += 128;
      if (this.frames >= sampleRate / 50) {
        this.port.postMessage([Date.now(), Math.sqrt(this.sum / this.frames)]);
        this.sum = 0;
        this.frames = 0;
      }
      return true;
    }
  }
  registerProcessor('level', Level);`;
  let context: Promise<AudioContext> | null = null;
  const audio = () =>
    (context ??= (async () => {
      const ctx = new AudioContext();
      await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([levels], { type: 'text/javascript' })));
      return ctx;
    })());
  const seen = new WeakSet<MediaStreamTrack>();
  const take = (track: MediaStreamTrack) => {
    if (track.kind !== 'audio' || seen.has(track)) return;
    seen.add(track);
    const record: HeardTrack = { id: track.id, addedAt: Date.now(), endedAt: null, levels: [] };
    heard.tracks.push(record);
    track.addEventListener('ended', () => (record.endedAt = Date.now()));
    void audio().then((ctx) => {
      const node = new AudioWorkletNode(ctx, 'level');
      node.port.onmessage = (e: MessageEvent<[number, number]>) => record.levels.push(e.data);
      const mute = ctx.createGain();
      mute.gain.value = 0;
      ctx
        .createMediaStreamSource(new MediaStream([track]))
        .connect(node)
        .connect(mute)
        .connect(ctx.destination);
    });
  };
  class Hooked extends NativePeerConnection {
    constructor(config?: RTCConfiguration) {
      super(config);
      this.addEventListener('track', (e) => take(e.track));
    }
  }
  window.RTCPeerConnection = Hooked;
}

/** The hook as page source; tsx names functions with an `__name` helper the page lacks, given here. */
const HOOK = `{ const __name = (f) => f; (${hookRemoteAudio.toString()})(); }`;

/** Measures the remote audio of every document `page` loads from now on. */
export async function measureRemoteAudio(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(HOOK);
}

/** What the page's remote audio tracks carried so far. */
export function heardOn(page: Page): Promise<Heard> {
  return page.evaluate(() => (window as unknown as { __heard: Heard }).__heard);
}

/** How many of the levels between `from` and `to` (epoch ms) pass `test`. */
export function count(
  levels: Array<[number, number]>,
  from: number,
  to: number,
  test: (rms: number) => boolean,
): number {
  return levels.filter(([at, rms]) => at >= from && at <= to && test(rms)).length;
}

/** The loudest of the levels between `from` and `to` (epoch ms); 0 where there are none. */
export function peak(levels: Array<[number, number]>, from: number, to: number): number {
  return Math.max(0, ...levels.filter(([at]) => at >= from && at <= to).map(([, rms]) => rms));
}
