/**
 * A meeting's audio for transcriber tests: spoken sentences with pauses between them, fed to an
 * AudioTranscriber as the page hands it over (100 ms chunks of one track, back to back on the
 * audio clock), at real time or faster.
 */
import { joined, silence, spokenPcm, type SpokenAudio } from '../../../../test/support/speech-engine/index.js';
import { PCM_SAMPLE_RATE } from '../../src/recording/page-capture.js';
import type { AudioTranscriber } from '../../src/transcription/audio-transcriber.js';

const CHUNK = PCM_SAMPLE_RATE / 10;
/** Long enough to end an utterance (PAUSE_MS), short enough to be a meeting's. */
const PAUSE_S = 0.7;

/** `sentences` said one after the other, each after a pause, and how long it all lasts. */
export async function saying(sentences: readonly string[]): Promise<{ audio: SpokenAudio; seconds: number }> {
  const parts: SpokenAudio[] = [];
  for (const sentence of sentences) parts.push(silence(PAUSE_S), await spokenPcm(sentence));
  parts.push(silence(PAUSE_S));
  const audio = joined(...parts);
  return { audio, seconds: audio.pcm.length / PCM_SAMPLE_RATE };
}

/** One track's audio clock and wall clock, carried from one `feed` to the next. */
export class Track {
  private frame = 0;

  constructor(
    readonly transcriber: AudioTranscriber,
    readonly id = 't1',
    private readonly startMs = Date.now(),
  ) {}

  /** Feeds `audio` in the page's chunks, `speed` times real time (Infinity: as fast as it goes, a turn between chunks). */
  async feed(audio: SpokenAudio, speed: number): Promise<void> {
    const began = performance.now();
    for (let at = 0; at < audio.pcm.length; at += CHUNK) {
      const samples = audio.pcm.slice(at, at + CHUNK);
      this.frame += samples.length;
      const endMs = this.startMs + (this.frame * 1000) / PCM_SAMPLE_RATE;
      const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
      this.transcriber.push({ track: this.id, frame: this.frame - samples.length, endMs, data });
      const due = ((at + CHUNK) * 1000) / PCM_SAMPLE_RATE / speed - (performance.now() - began);
      await new Promise((resolve) =>
        Number.isFinite(due) && due > 0 ? setTimeout(resolve, due) : setImmediate(resolve),
      );
    }
  }
}
