/** A recorded meeting's file as its owner downloads it, and where its sounds are, for the e2e tests. */
import { expect } from 'chai';
import { decodeAudio, type DecodedAudio } from '../../support/audio.js';
import type { ReceivedCallback } from '../../support/callback-receiver.js';
import type { Utterance } from '../../simulators/index.js';
import { payloadOf, type StartedMeeting, type World } from './world.js';

/** Louder than this is speech; espeak-ng's speech measures in the thousands, silence near 0. */
const SPEECH_FLOOR = 300;
const SILENCE_CEILING = 60;

/** When the meeting emitted the event (its envelope's timestamp), epoch ms. */
export const eventTime = (c: ReceivedCallback) => Date.parse((c.json as { timestamp: string }).timestamp);

export interface Saved {
  /** saved, or incomplete (with gaps). */
  status: string;
  gaps: Array<{ startMs: number; endMs: number; reason: string }>;
  bytes: number;
  durationMs: number;
  startedAt: string;
  audio: DecodedAudio;
}

/** The recording as the owner downloads it, once `recording_saved` came. */
export async function savedRecording(world: World, m: StartedMeeting): Promise<Saved> {
  const saved = payloadOf(
    await world.waitForCallback(m.meetingId, (c) => c.eventType === 'recording_saved', 'recording_saved', 20_000),
  );
  const transcript = await (await world.get(`/meetings/${m.meetingId}/transcript`, m.token)).json();
  const res = await world.get(`/meetings/${m.meetingId}/recording`, m.token);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('audio/ogg');
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.length).to.equal(saved.bytes);
  return {
    status: String(saved.status),
    gaps: saved.gaps as Saved['gaps'],
    bytes: Number(saved.bytes),
    durationMs: Number(saved.durationMs),
    startedAt: transcript.recording.startedAt,
    audio: decodeAudio(bytes),
  };
}

/** Each utterance loud in its window (on the file's timeline), and silence between them. */
export function expectWhereSaid(saved: Saved, utterances: Utterance[], guestId: string): void {
  const t0 = Date.parse(saved.startedAt);
  const windows = utterances.map((u) => {
    const play = u.plays.find((p) => p.guestId === guestId);
    expect(play, `the bot's page played "${u.text}"`).to.not.equal(undefined);
    return { text: u.text, from: play!.startedAt - t0, to: play!.startedAt - t0 + u.durationMs };
  });
  for (const w of windows) {
    const loud = saved.audio.rms(w.from + 150, w.to - 150);
    expect(loud, `sound of "${w.text}" at ${w.from}-${w.to} ms`).to.be.greaterThan(SPEECH_FLOOR);
  }
  for (let i = 1; i < windows.length; i++) {
    const quiet = saved.audio.rms(windows[i - 1].to + 300, windows[i].from - 300);
    expect(quiet, `silence between utterances ${i} and ${i + 1}`).to.be.lessThan(SILENCE_CEILING);
  }
}
