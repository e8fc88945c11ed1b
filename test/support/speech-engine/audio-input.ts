/**
 * Any audio a client uploads (WAV, Ogg, MP3...) as the decoder wants it: 16 kHz mono s16le, as a
 * real speech engine accepts whatever ffmpeg (Debian's package) can read.
 *
 * A faint pink noise (about -50 dBFS, fixed seed) is mixed in: the acoustic model learnt silence
 * from rooms, and digital silence (espeak-ng's, or a muted WebRTC track's) between sentences made
 * pocketsphinx fill the pause with words. With it, 0.3 s of leading and 0.5 s of trailing digital
 * silence went from 69 to 78 of 84 utterances recognized exactly.
 *
 * A WAV that is already 16 kHz mono s16le (what the worker sends) is taken as it is and the noise
 * added here, sample for sample what ffmpeg's mix gives: ffmpeg's start-up and filter graph cost
 * more CPU than pocketsphinx's decode (~160 ms against ~100 ms for a 3 s utterance), and with ten
 * meetings' partials the engine took the two cores the meetings themselves run on.
 */
import { spawn } from 'node:child_process';
import { SAMPLE_RATE } from './pocketsphinx.js';

export class UndecodableAudio extends Error {}

const NOISE = `anoisesrc=r=${SAMPLE_RATE}:a=0.003:c=pink:seed=37`;
/** Any file's audio at the decoder's rate, in mono, with the noise added (summed, not averaged). */
const MIX_FILTER = `[0:a]aresample=${SAMPLE_RATE},aformat=channel_layouts=mono[speech];[speech][1:a]amix=inputs=2:duration=first:normalize=0`;
/** The noise is repeated past this: longer than any utterance a worker sends (30 s). */
const NOISE_SECONDS = 60;

export async function toDecoderPcm(file: Buffer): Promise<Buffer> {
  const pcm = decoderWavPcm(file);
  if (!pcm) return ffmpeg(['-i', 'pipe:0', '-f', 'lavfi', '-i', NOISE, '-filter_complex', MIX_FILTER], file);
  const noise = await pinkNoise();
  const out = Buffer.alloc(pcm.length);
  for (let at = 0; at < pcm.length; at += 2) {
    const sum = pcm.readInt16LE(at) + noise.readInt16LE(at % noise.length);
    out.writeInt16LE(Math.max(-32768, Math.min(32767, sum)), at);
  }
  return out;
}

let noiseOnce: Promise<Buffer> | undefined;
/** The noise ffmpeg mixes in, made by ffmpeg once. */
function pinkNoise(): Promise<Buffer> {
  noiseOnce ??= ffmpeg(['-f', 'lavfi', '-i', `${NOISE}:d=${NOISE_SECONDS}`]);
  return noiseOnce;
}

/** The samples of a WAV of 16 kHz mono 16-bit PCM, or undefined for any other file. */
function decoderWavPcm(file: Buffer): Buffer | undefined {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE')
    return undefined;
  let plain = false;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && size >= 16 && body + 16 <= file.length) {
      const [format, channels, rate, bits] = [
        file.readUInt16LE(body),
        file.readUInt16LE(body + 2),
        file.readUInt32LE(body + 4),
        file.readUInt16LE(body + 14),
      ];
      plain = format === 1 && channels === 1 && rate === SAMPLE_RATE && bits === 16;
    }
    if (id === 'data') return plain ? file.subarray(body, Math.min(file.length, body + size) & ~1) : undefined;
    at = body + size + (size & 1); // chunks are padded to an even length
  }
  return undefined;
}

/** ffmpeg's 16 kHz mono s16le output of `inputs` (`stdin` fed to pipe:0). */
function ffmpeg(inputs: string[], stdin?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const args = ['-v', 'error', ...inputs, '-f', 's16le', '-ac', '1', '-ar', String(SAMPLE_RATE), 'pipe:1'];
    const child = spawn('ffmpeg', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // ffmpeg may stop reading early on garbage; the exit code says what happened.
    child.stdin.on('error', () => {});
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(out));
      const why = Buffer.concat(err).toString('utf8').trim().split('\n').pop();
      reject(new UndecodableAudio(`the audio file could not be decoded: ${why || `ffmpeg exit ${code}`}`));
    });
    child.stdin.end(stdin);
  });
}

/** Seconds of 16 kHz mono s16le PCM. */
export const pcmSeconds = (pcm: Buffer) => pcm.length / 2 / SAMPLE_RATE;
