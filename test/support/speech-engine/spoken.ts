/**
 * Speech for speech-engine tests: the meeting simulator's espeak-ng WAVs (same voices, same cache),
 * as the file espeak-ng wrote or as the 16 kHz mono PCM a worker would send, whole or its first
 * seconds (cut by ffmpeg, as a live caller's growing utterance is cut).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { synthesize, VOICES, type Voice } from '../../simulators/speech.js';
import { encodeWav } from '../../../services/meeting-session/src/transcription/wav.js';

export { VOICES, type Voice };

/** espeak-ng's default US English voice at 160 words a minute. */
export const PLAIN_VOICE: Voice = { voice: 'en-us', pitch: 50, speed: 160 };

export interface SpokenAudio {
  pcm: Int16Array;
  sampleRate: number;
}

/** The WAV espeak-ng made (22,050 Hz), trailing silence cut. */
export async function spokenWav(text: string, voice: Voice = PLAIN_VOICE): Promise<Buffer> {
  return readFile((await synthesize(voice, text)).file);
}

/** The speech as 16 kHz mono PCM; with `seconds`, only its beginning. */
export async function spokenPcm(text: string, voice: Voice = PLAIN_VOICE, seconds?: number): Promise<SpokenAudio> {
  const { file } = await synthesize(voice, text);
  const cut = seconds === undefined ? [] : ['-t', String(seconds)];
  const args = ['-v', 'error', '-i', file, ...cut, '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1'];
  const raw = await new Promise<Buffer>((resolve, reject) =>
    execFile('ffmpeg', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, out, err) =>
      error ? reject(new Error(`ffmpeg: ${err.toString() || error.message}`)) : resolve(out),
    ),
  );
  const pcm = new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + (raw.length & ~1)));
  return { pcm, sampleRate: 16_000 };
}

/** Seconds `text` lasts when spoken in `voice`. */
export async function spokenSeconds(text: string, voice: Voice = PLAIN_VOICE): Promise<number> {
  return (await synthesize(voice, text)).durationMs / 1000;
}

/** Silence of `seconds` at 16 kHz (a caller's pause). */
export const silence = (seconds: number): SpokenAudio => ({
  pcm: new Int16Array(Math.round(seconds * 16_000)),
  sampleRate: 16_000,
});

/** Audio pieces one after the other (all at 16 kHz). */
export function joined(...parts: SpokenAudio[]): SpokenAudio {
  const pcm = new Int16Array(parts.reduce((n, p) => n + p.pcm.length, 0));
  let at = 0;
  for (const part of parts) {
    pcm.set(part.pcm, at);
    at += part.pcm.length;
  }
  return { pcm, sampleRate: 16_000 };
}

/** A WAV file of 16 kHz mono PCM (what a client uploads): the worker's own encoder. */
export const wavOf = (audio: SpokenAudio): Buffer => Buffer.from(encodeWav(audio.pcm, audio.sampleRate));
