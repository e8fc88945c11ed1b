/**
 * Cuts one track's audio into utterances at pauses, by energy: a 20 ms frame is speech when it is
 * well above the track's noise floor (and above an absolute floor, for digital silence). An
 * utterance starts after 60 ms of speech (a click is not one), keeps 200 ms before its first
 * speech frame (a soft first syllable), and ends after PAUSE_MS without speech or at MAX_MS. After
 * TAIL_MS without speech it is `paused`: what an ended utterance is transcribed from (its speech
 * and TAIL_MS after) is all there, so its final can be on its way while the pause is confirmed.
 *
 * Meetings reach the bot through the platform's own noise suppression, so what comes in is speech
 * or near-silence; an energy gate is enough there and costs nothing (a model-based VAD would be
 * the next step for noisy rooms: docs/services/meeting-session.md).
 */

export const FRAME_MS = 20;
/** The pause that ends an utterance. Longer is fewer cut sentences; shorter is an earlier final. */
export const PAUSE_MS = 300;
/** The pause kept after an utterance's last speech in what is transcribed (engines make words of a long silence). */
export const TAIL_MS = 150;
export const MAX_MS = 30_000;
const PREROLL_MS = 200;
const ONSET_FRAMES = 3;
/** Less speech than this in an utterance is a noise, not words. */
const MIN_SPEECH_MS = 200;
const ABSOLUTE_FLOOR_DB = -50;
const ABOVE_NOISE_DB = 15;

export interface Utterance {
  track: string;
  /** Epoch ms of the first sample and of the end (so far). */
  startMs: number;
  endMs: number;
  /** Epoch ms of the first speech and of the end of the last speech (the rest is pre-roll and pause). */
  speechFromMs: number;
  speechToMs: number;
  /** The audio so far: a growing list of chunks, joined on demand (empty once released). */
  samples(): Int16Array;
  /** The PCM it holds, in bytes. */
  readonly bytes: number;
  /** Its audio is no longer needed (transcribed, or never to be): let it go; the times stay. */
  release(): void;
  ended: boolean;
}

export interface VoiceActivityEvents {
  started(utterance: Utterance): void;
  /** TAIL_MS without speech: the utterance ends here unless speech comes back within PAUSE_MS. */
  paused?(utterance: Utterance): void;
  ended(utterance: Utterance): void;
}

class OpenUtterance implements Utterance {
  ended = false;
  endMs: number;
  speechFromMs: number;
  speechToMs: number;
  speechMs = 0;
  private parts: Int16Array[] = [];
  private length = 0;
  private joined: Int16Array | null = null;

  constructor(
    readonly track: string,
    readonly startMs: number,
    preroll: Int16Array[],
  ) {
    this.endMs = startMs;
    this.speechFromMs = startMs;
    this.speechToMs = startMs;
    for (const part of preroll) this.add(part);
  }

  add(frame: Int16Array): void {
    this.parts.push(frame);
    this.length += frame.length;
    this.joined = null;
  }

  get bytes(): number {
    return this.length * Int16Array.BYTES_PER_ELEMENT;
  }

  samples(): Int16Array {
    if (this.joined) return this.joined;
    const all = new Int16Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      all.set(part, at);
      at += part.length;
    }
    // The joined copy stands for the parts from now on: the audio is held once, not twice.
    this.parts = [all];
    this.joined = all;
    return all;
  }

  release(): void {
    this.parts = [];
    this.length = 0;
    this.joined = null;
  }
}

export class VoiceActivity {
  private readonly frameSamples: number;
  private noiseDb = ABSOLUTE_FLOOR_DB;
  /** Where the next frame is on the wall clock, and on the tap's audio clock (in samples). */
  private nextMs = 0;
  private nextFrame: number | null = null;
  private leftover = new Int16Array(0);
  private readonly preroll: Int16Array[] = [];
  private onset = 0;
  private silentMs = 0;
  private current: OpenUtterance | null = null;

  constructor(
    private readonly track: string,
    private readonly sampleRate: number,
    private readonly events: VoiceActivityEvents,
  ) {
    this.frameSamples = (sampleRate * FRAME_MS) / 1000;
  }

  /** The utterance under way, if any. */
  get open(): Utterance | null {
    return this.current;
  }

  /**
   * One chunk of the track's audio: its first sample at `frame` on the audio clock, its last
   * rendered at `endMs` on the wall clock. Chunks come back to back on the audio clock; one that
   * does not follow on means the track went quiet (unplugged) in between.
   */
  push(samples: Int16Array, frame: number, endMs: number): void {
    const follows = frame === this.nextFrame;
    if (!follows) {
      this.close();
      this.leftover = new Int16Array(0);
      this.preroll.length = 0;
      this.onset = 0;
    }
    this.nextFrame = frame + samples.length;
    // The frames' wall-clock times follow the chunk's own placement (its clock may drift from the
    // wall's); the frames still to cut from the chunk before this one go just before it.
    this.nextMs = endMs - ((samples.length + this.leftover.length) * 1000) / this.sampleRate;
    const all = concat(this.leftover, samples);
    let at = 0;
    for (; at + this.frameSamples <= all.length; at += this.frameSamples) {
      this.frame(all.subarray(at, at + this.frameSamples).slice());
    }
    this.leftover = all.slice(at);
  }

  /** The track is gone or the meeting over: the utterance under way ends here. */
  close(): void {
    const utterance = this.current;
    this.current = null;
    this.silentMs = 0;
    if (!utterance) return;
    utterance.ended = true;
    if (utterance.speechMs >= MIN_SPEECH_MS) this.events.ended(utterance);
  }

  private frame(frame: Int16Array): void {
    const at = this.nextMs;
    this.nextMs = at + FRAME_MS;
    const speech = this.isSpeech(frame);
    const utterance = this.current;
    if (utterance) {
      utterance.add(frame);
      utterance.endMs = at + FRAME_MS;
      if (speech) {
        utterance.speechMs += FRAME_MS;
        utterance.speechToMs = utterance.endMs;
        this.silentMs = 0;
      } else this.silentMs += FRAME_MS;
      if (this.silentMs >= PAUSE_MS || utterance.endMs - utterance.startMs >= MAX_MS) this.close();
      else if (this.silentMs >= TAIL_MS && this.silentMs - FRAME_MS < TAIL_MS && utterance.speechMs >= MIN_SPEECH_MS)
        this.events.paused?.(utterance);
      return;
    }
    this.preroll.push(frame);
    if (this.preroll.length > PREROLL_MS / FRAME_MS + ONSET_FRAMES) this.preroll.shift();
    this.onset = speech ? this.onset + 1 : 0;
    if (this.onset < ONSET_FRAMES) return;
    const startMs = this.nextMs - this.preroll.length * FRAME_MS;
    this.current = new OpenUtterance(this.track, startMs, this.preroll.splice(0));
    this.current.endMs = this.nextMs;
    this.current.speechFromMs = this.nextMs - ONSET_FRAMES * FRAME_MS;
    this.current.speechToMs = this.nextMs;
    this.current.speechMs = ONSET_FRAMES * FRAME_MS;
    this.onset = 0;
    this.events.started(this.current);
  }

  private isSpeech(frame: Int16Array): boolean {
    let sum = 0;
    for (let i = 0; i < frame.length; i++) sum += frame[i] * frame[i];
    const db = 10 * Math.log10(sum / frame.length / (32768 * 32768) + 1e-12);
    const speech = db > Math.max(ABSOLUTE_FLOOR_DB, this.noiseDb + ABOVE_NOISE_DB);
    // The floor follows quiet frames quickly down and slowly up, so speech never raises it much.
    if (!speech) this.noiseDb = db < this.noiseDb ? db : this.noiseDb + 0.05 * (db - this.noiseDb);
    return speech;
  }
}

function concat(a: Int16Array, b: Int16Array): Int16Array {
  if (a.length === 0) return b;
  const all = new Int16Array(a.length + b.length);
  all.set(a);
  all.set(b, a.length);
  return all;
}
