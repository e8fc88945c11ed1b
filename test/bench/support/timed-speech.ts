/**
 * Speech with captions the benches time: a sentence said aloud in a simulated meeting while its
 * words are shown as a caption turn growing in step with the sound (as the simulator's own
 * captions would grow), each step reported when shown so its way to the receiver can be timed.
 */
import { growWords, SPEECH_LEAD_MS, type SimMeeting, type Voice } from '../../simulators/index.js';
import { synthesize } from '../../simulators/speech.js';
import { sleep } from '../../support/wait.js';

export const delayUntil = (at: number) => sleep(Math.max(0, at - Date.now()));

export async function sayWithTimedCaptions(
  sim: SimMeeting,
  speaker: string,
  voice: Voice,
  text: string,
  onShown: (step: string) => void,
): Promise<void> {
  const speech = await synthesize(voice, text); // made before the phases: from the cache
  const turn = sim.caption(speaker);
  const startAt = Date.now() + SPEECH_LEAD_MS;
  const said = sim.say(speaker, text, { captions: false, voice });
  const steps = growWords(text);
  const shows = steps.map((step, i) =>
    delayUntil(startAt + (speech.durationMs * (i + 1)) / steps.length).then(() => {
      onShown(step);
      turn.show(step);
    }),
  );
  await Promise.all([said, ...shows]);
}
