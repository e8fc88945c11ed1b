/**
 * What the participants of the recording and audio-transcription benches say: plain words (no
 * capitals or punctuation, so the caption text a partial carries is the text shown; no commas, a
 * pause would cut a sentence), every word in the test speech engine's dictionary. The test engine
 * heard every sentence exactly in each of the simulator's male voices.
 */
import { synthesize } from '../../simulators/speech.js';
import type { Voice } from '../../simulators/index.js';
import { mean } from '../stats.js';

export const SENTENCES = [
  'good morning everyone thanks for joining the weekly sync',
  'we should ship the release on friday after the review',
  'the tests pass on every platform except the old tablet',
  'can someone take the action item on the front page',
  'i think the new dashboard is ready for the customers',
  'the budget for next quarter is still under discussion',
  'let us move the design review to next tuesday',
  'marketing wants the screenshots by the end of the week',
  'the database migration took about twenty minutes last night',
  'we saw fewer support tickets after the last update',
  'please add your notes to the shared document',
  'the mobile team is blocked on the payment provider',
  'our latency goal is two hundred milliseconds at the edge',
  'i will follow up with legal about the new contract',
  'the welcome page needs one more round of testing',
  'do we have a date for the security audit',
  'the interns start on monday and need laptops',
  'let us keep the demo short and focus on search',
  'the translation files came back from the agency',
  'we agreed to drop the old export format next month',
  'the cache hit rate went up to ninety percent',
  'someone should update the manual for the pager',
  'the partner asked for a sandbox account again',
  'that is all from me for today thank you',
];

/**
 * Every sentence's WAV in each voice made before any phase, so espeak-ng runs in none of the
 * measured windows; returns how long a sentence's sound lasts on average (ms).
 */
export async function synthesizeScript(voices: Voice[]): Promise<number> {
  const speeches = await Promise.all(voices.flatMap((voice) => SENTENCES.map((s) => synthesize(voice, s))));
  return mean(speeches.map((s) => s.durationMs));
}
