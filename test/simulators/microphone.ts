/**
 * What the simulated calls heard of their guests' microphones (pages/call-microphone.js): each
 * turn of a guest's microphone button (on or off, when) and, while it was on, the sound of its
 * microphone as 16 kHz mono PCM chunks stamped with when they began. A test reads it by meeting
 * (`microphoneOf`): whether the bot's microphone was on, and what it said (`pcm()`, to recognize).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from './http.js';
import type { SimMeeting } from './meeting.js';

export const MIC_RATE = 16_000;

export interface MicTurn {
  guestId: string;
  on: boolean;
  at: number;
  /** getUserMedia refused the page (the turn did not happen). */
  error?: string;
}

export interface MicChunk {
  guestId: string;
  /** Epoch ms of the chunk's first sample. */
  at: number;
  pcm: Int16Array;
}

export class MicrophoneLog {
  readonly turns: MicTurn[] = [];
  readonly chunks: MicChunk[] = [];

  /** Whether the microphone is on now (the last turn said so). */
  get on(): boolean {
    return this.turns.filter((t) => !t.error).at(-1)?.on ?? false;
  }

  /** Every sample heard after `since` (epoch ms), chunks joined in order of arrival. */
  pcm(since = 0): Buffer {
    const parts = this.chunks
      .filter((c) => c.at >= since)
      .map((c) => Buffer.from(c.pcm.buffer, c.pcm.byteOffset, c.pcm.byteLength));
    return Buffer.concat(parts);
  }

  /** Epoch ms of the first sample above `threshold` (of 32767) heard after `since`, or null. */
  firstSoundAt(since = 0, threshold = 1_000): number | null {
    for (const chunk of this.chunks) {
      if (chunk.at + (chunk.pcm.length / MIC_RATE) * 1000 < since) continue;
      for (let i = 0; i < chunk.pcm.length; i++) {
        const at = chunk.at + (i / MIC_RATE) * 1000;
        if (at >= since && Math.abs(chunk.pcm[i]) > threshold) return at;
      }
    }
    return null;
  }

  /** Samples above `threshold` heard from `from` to `to` (epoch ms). */
  loudSamples(from: number, to: number, threshold = 1_000): number {
    let loud = 0;
    for (const chunk of this.chunks) {
      for (let i = 0; i < chunk.pcm.length; i++) {
        const at = chunk.at + (i / MIC_RATE) * 1000;
        if (at >= from && at <= to && Math.abs(chunk.pcm[i]) > threshold) loud++;
      }
    }
    return loud;
  }
}

const logs = new WeakMap<SimMeeting, MicrophoneLog>();

export function microphoneOf(meeting: SimMeeting): MicrophoneLog {
  let log = logs.get(meeting);
  if (!log) logs.set(meeting, (log = new MicrophoneLog()));
  return log;
}

/** The pages' `POST /_sim/api/mic` and `mic-audio`; false for any other route. */
export async function handleMicrophoneApi(
  meetingOfGuest: (guestId: string) => SimMeeting | undefined | null,
  route: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  if (route !== 'POST mic' && route !== 'POST mic-audio') return false;
  const body = await readJson(req);
  const guestId = String(body.guest);
  const meeting = meetingOfGuest(guestId);
  if (!meeting) {
    sendJson(res, 404, { error: 'unknown guest' });
    return true;
  }
  const log = microphoneOf(meeting);
  if (route === 'POST mic') {
    log.turns.push({
      guestId,
      on: Boolean(body.on),
      at: Number(body.at),
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
    });
  } else {
    const bytes = Buffer.from(String(body.pcm), 'base64');
    const pcm = new Int16Array(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength - (bytes.byteLength % 2)),
    );
    log.chunks.push({ guestId, at: Number(body.at), pcm });
  }
  sendJson(res, 200, {});
  return true;
}
