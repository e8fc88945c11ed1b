/**
 * Real speech for the simulated meetings: espeak-ng makes a WAV per (voice, text), cached in a
 * temp directory shared by every run, and the simulator serves it to its pages on their own origin
 * (/_sim/audio/<id>.wav) and hands it to its media server, which plays it into each bot page's
 * call over WebRTC (media/audio.ts).
 *
 * Each speaker of a meeting gets a voice of their own (VOICES, in the order they first speak), so
 * a recording tells the speakers apart by ear too. The WAV's trailing silence is cut, so an
 * utterance's duration is its speech: the ground truth's window [startedAt, startedAt + durationMs]
 * is when there is sound.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';

/** An espeak-ng voice: a language with a variant (+m3, +f2...), a pitch (0-99) and words a minute. */
export interface Voice {
  voice: string;
  pitch: number;
  speed: number;
}

/** Distinct voices, handed to a meeting's speakers in the order they first speak. */
export const VOICES: readonly Voice[] = [
  { voice: 'en-us+m3', pitch: 40, speed: 165 },
  { voice: 'en-us+f2', pitch: 70, speed: 175 },
  { voice: 'en-gb+m7', pitch: 30, speed: 155 },
  { voice: 'en-us+f4', pitch: 60, speed: 185 },
  { voice: 'en-gb+m1', pitch: 50, speed: 170 },
  { voice: 'en-us+f1', pitch: 80, speed: 160 },
];

/** "en-us+f2 -p 70 -s 175": a voice as espeak-ng's options name it. */
export const voiceLabel = (v: Voice) => `${v.voice} -p ${v.pitch} -s ${v.speed}`;

export interface Speech {
  /** Names the WAV: /_sim/audio/<id>.wav. */
  id: string;
  file: string;
  durationMs: number;
}

export const SPEECH_DIR = join(tmpdir(), 'notetaker-sim-speech');
const AUDIO_PATH = /^\/_sim\/audio\/([0-9a-f]{32})\.wav$/;
/** A sample below this (of 32767) is silence when cutting the tail. */
const TAIL_SILENCE = 200;
/** Kept after the last sound, so the speech's last sound is not clipped. */
const TAIL_KEEP_MS = 40;

const pending = new Map<string, Promise<Speech>>();

export const audioUrl = (id: string) => `/_sim/audio/${id}.wav`;

/** The WAV of `text` in `voice`, made once per (voice, text) and kept in SPEECH_DIR. */
export function synthesize(voice: Voice, text: string): Promise<Speech> {
  const id = createHash('sha256')
    .update(JSON.stringify([voiceLabel(voice), text]))
    .digest('hex')
    .slice(0, 32);
  let speech = pending.get(id);
  if (!speech) {
    speech = make(id, voice, text);
    pending.set(id, speech);
    speech.catch(() => pending.delete(id));
  }
  return speech;
}

async function make(id: string, voice: Voice, text: string): Promise<Speech> {
  const file = join(SPEECH_DIR, `${id}.wav`);
  const cached = await readFile(file).catch(() => null);
  if (cached) return { id, file, durationMs: wavDurationMs(cached) };
  await mkdir(SPEECH_DIR, { recursive: true });
  const raw = `${file}.${process.pid}.raw`;
  await new Promise<void>((resolve, reject) => {
    const args = ['-v', voice.voice, '-p', String(voice.pitch), '-s', String(voice.speed), '-w', raw, '--stdin'];
    const child = execFile('espeak-ng', args, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      reject(
        new Error(
          missing ? 'espeak-ng is not installed (apt-get install espeak-ng)' : `espeak-ng: ${stderr || error.message}`,
        ),
      );
    });
    child.stdin?.end(text);
  });
  const wav = trimTail(await readFile(raw));
  // Written aside and renamed: another run reading the cache never sees half a file.
  await writeFile(raw, wav);
  await rename(raw, file);
  return { id, file, durationMs: wavDurationMs(wav) };
}

interface Wav {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataOffset: number;
  dataLength: number;
}

function parseWav(wav: Buffer): Wav {
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV');
  let offset = 12;
  let format: Omit<Wav, 'dataOffset' | 'dataLength'> | null = null;
  while (offset + 8 <= wav.length) {
    const chunk = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (chunk === 'fmt ')
      format = {
        channels: wav.readUInt16LE(offset + 10),
        sampleRate: wav.readUInt32LE(offset + 12),
        bitsPerSample: wav.readUInt16LE(offset + 22),
      };
    if (chunk === 'data' && format) {
      // espeak-ng writing to a pipe leaves the size at its maximum: the data runs to the end.
      return { ...format, dataOffset: offset + 8, dataLength: Math.min(size, wav.length - offset - 8) };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('WAV without fmt and data chunks');
}

export function wavDurationMs(wav: Buffer): number {
  const w = parseWav(wav);
  const frames = w.dataLength / (w.channels * (w.bitsPerSample / 8));
  return Math.round((frames / w.sampleRate) * 1000);
}

/** The WAV without the silence after its last sound (16-bit PCM, as espeak-ng writes). */
function trimTail(wav: Buffer): Buffer {
  const w = parseWav(wav);
  if (w.bitsPerSample !== 16) return wav;
  const frameBytes = 2 * w.channels;
  let end = w.dataOffset + w.dataLength - (w.dataLength % frameBytes);
  while (end > w.dataOffset && Math.abs(wav.readInt16LE(end - 2)) < TAIL_SILENCE) end -= 2;
  end = Math.min(w.dataOffset + w.dataLength, end + Math.round((TAIL_KEEP_MS / 1000) * w.sampleRate) * frameBytes);
  end -= (end - w.dataOffset) % frameBytes;
  const data = wav.subarray(w.dataOffset, end);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(w.channels, 22);
  header.writeUInt32LE(w.sampleRate, 24);
  header.writeUInt32LE(w.sampleRate * frameBytes, 28);
  header.writeUInt16LE(frameBytes, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** The speech id of an utterance's audioUrl (/_sim/audio/<id>.wav), or null. */
export const speechIdOf = (url: string): string | null => AUDIO_PATH.exec(url)?.[1] ?? null;

/** The WAV of a speech made here (synthesize). */
export const readSpeech = (id: string): Promise<Buffer> => readFile(join(SPEECH_DIR, `${id}.wav`));

/** Serves /_sim/audio/<id>.wav from the cache; false if the path is not one. */
export async function serveAudio(pathname: string, res: ServerResponse): Promise<boolean> {
  const match = AUDIO_PATH.exec(pathname);
  if (!match) return false;
  const file = join(SPEECH_DIR, `${match[1]}.wav`);
  const found = await stat(file).catch(() => null);
  if (!found) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such speech');
    return true;
  }
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': found.size, 'cache-control': 'max-age=3600' });
  res.end(await readFile(file));
  return true;
}
