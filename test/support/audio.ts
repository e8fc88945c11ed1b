/**
 * What a recording sounds like, for tests: decoded by ffmpeg (Debian's package, as a user's player
 * would decode it), then the loudness of any window of its timeline.
 */
import { execFileSync } from 'node:child_process';

const RATE = 8000;

export interface DecodedAudio {
  /** Seconds of audio the file holds. */
  seconds: number;
  /** Root mean square amplitude (0 to 32767) between two instants of the timeline, in ms. */
  rms(fromMs: number, toMs: number): number;
}

/** Decodes an Ogg file (a path or its bytes); throws what ffmpeg says when it cannot. */
export function decodeAudio(input: string | Buffer): DecodedAudio {
  const fromFile = typeof input === 'string';
  const pcm = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', fromFile ? input : 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', String(RATE), '-'],
    {
      input: fromFile ? undefined : input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
  return {
    seconds: samples.length / RATE,
    rms(fromMs, toMs) {
      const from = Math.max(0, Math.floor((fromMs * RATE) / 1000));
      const to = Math.min(samples.length, Math.floor((toMs * RATE) / 1000));
      if (to <= from) return 0;
      let sum = 0;
      for (let i = from; i < to; i++) sum += samples[i] * samples[i];
      return Math.sqrt(sum / (to - from));
    },
  };
}
