/**
 * Whether audio holds speech at all, before the grammar decoder is asked what was said: a
 * grammar always finds its closest sentence, and steady noise at -35 dBFS came out as "I think".
 * Speech rises and falls by syllables; a hiss, a hum or silence stays level. So: some 30 ms frames
 * at least 10 dB above the quietest tenth of the audio, for 150 ms in all.
 */
import { SAMPLE_RATE } from './pocketsphinx.js';

const FRAME = Math.round(SAMPLE_RATE * 0.03);
/** Energy over the floor that counts as a voiced frame: 10 dB. */
const ABOVE_FLOOR = 10;
/** Below this RMS (of 32767, about -50 dBFS) nothing is speech, whatever the floor. */
const QUIETEST_SPEECH = 100;
const MIN_SPEECH_FRAMES = Math.ceil(0.15 / 0.03);

export function holdsSpeech(pcm: Buffer): boolean {
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
  const levels: number[] = [];
  for (let at = 0; at + FRAME <= samples.length; at += FRAME) {
    let sum = 0;
    for (let i = at; i < at + FRAME; i++) sum += samples[i] * samples[i];
    levels.push(Math.sqrt(sum / FRAME));
  }
  if (levels.length < MIN_SPEECH_FRAMES) return false;
  const floor = [...levels].sort((a, b) => a - b)[Math.floor(levels.length / 10)];
  const threshold = Math.max(QUIETEST_SPEECH, floor * Math.sqrt(ABOVE_FLOOR));
  return levels.filter((level) => level > threshold).length >= MIN_SPEECH_FRAMES;
}
