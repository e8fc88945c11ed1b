/**
 * Speech with captions the benches time: a sentence said aloud in a simulated meeting while its
 * words are shown as a caption turn growing in step with the sound (as the simulator's own
 * captions would grow), each step noted when shown so its way to the receiver can be timed.
 */
import type { StartedMeeting } from '../../e2e/support/world.js';
import type { ReceivedCallback } from '../../support/callback-receiver.js';
import { growWords, SPEECH_LEAD_MS, type Voice } from '../../simulators/index.js';
import { synthesize } from '../../simulators/speech.js';
import { sleep } from '../../support/wait.js';

export const delayUntil = (at: number) => sleep(Math.max(0, at - Date.now()));

/** The captions shown and how late their `caption_partial`s arrived. */
export interface CaptionTimes {
  /** `${meetingId} ${text}` -> when the simulator showed it (performance.now()), until its partial arrives. */
  pending: Map<string, number>;
  shown: number;
  captionMs: number[];
}

export async function sayWithTimedCaptions(
  times: CaptionTimes,
  m: StartedMeeting,
  speaker: string,
  voice: Voice,
  text: string,
): Promise<void> {
  const speech = await synthesize(voice, text); // made before the phases: from the cache
  const turn = m.sim.caption(speaker);
  const startAt = Date.now() + SPEECH_LEAD_MS;
  const said = m.sim.say(speaker, text, { captions: false, voice });
  const steps = growWords(text);
  const shows = steps.map((step, i) =>
    delayUntil(startAt + (speech.durationMs * (i + 1)) / steps.length).then(() => {
      times.pending.set(`${m.meetingId} ${step}`, performance.now());
      times.shown++;
      turn.show(step);
    }),
  );
  await Promise.all([said, ...shows]);
}

/** A signed `caption_partial` carrying `text`: its latency from the caption's showing, once a showing. */
export function captionArrived(times: CaptionTimes, c: ReceivedCallback, text: string): void {
  const key = `${c.meetingId} ${text}`;
  const shownAt = times.pending.get(key);
  if (shownAt === undefined) return;
  times.pending.delete(key);
  times.captionMs.push(c.receivedAt - shownAt);
}
