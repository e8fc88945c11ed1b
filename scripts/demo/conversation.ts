/**
 * The demo's meeting: two scripted people on the project's Google Meet simulator, about a minute
 * of talk with a join, a question, an answer and someone leaving. The demo's test checks the
 * saved document against `LINES`.
 */
import { growWords, type SimMeeting } from '../../test/simulators/index.js';

export const HOST = 'Alice Example';
export const GUEST = 'Bob Jones';

export type Step = { say: string; by: string } | { join: string } | { leave: string } | { pauseMs: number };

/** Alice is in the meeting and lets the bot in; then this, in order; then she ends the meeting. */
export const SCRIPT: Step[] = [
  { say: "Thanks for joining. Let's go through the launch plan for the new billing page.", by: HOST },
  { pauseMs: 3_000 },
  { join: GUEST },
  { pauseMs: 3_000 },
  { say: 'Sorry I am late. Did I miss anything important?', by: GUEST },
  { say: 'Not at all, we just started. Bob, is the billing page ready to ship on Friday?', by: HOST },
  { say: 'Yes, it passed review this morning and every test is green.', by: GUEST },
  { say: 'Great. Then we ship on Friday, and I will tell the support team today.', by: HOST },
  { say: 'Sounds good. I have to drop off for another call now, see you tomorrow.', by: GUEST },
  { pauseMs: 1_500 },
  { leave: GUEST },
  { pauseMs: 3_000 },
  { say: "That's everything for today. Thank you, and goodbye.", by: HOST },
];

/** What was said, in order: what the document must hold. */
export const LINES = SCRIPT.flatMap((step) => ('say' in step ? [{ speaker: step.by, text: step.say }] : []));

/** About the pace of speech: a caption grows by a word every 350 ms. */
const WORD_MS = 350;
/** Between two people's turns, as in a conversation. */
const TURN_GAP_MS = 2_500;

/** Plays SCRIPT on `meeting`, telling `onStep` before each step. */
export async function play(meeting: SimMeeting, onStep: (step: Step) => void = () => {}): Promise<void> {
  for (const step of SCRIPT) {
    onStep(step);
    if ('say' in step) {
      await meeting.speak(step.by, growWords(step.say), WORD_MS);
      await sleep(TURN_GAP_MS);
    } else if ('join' in step) meeting.join(step.join);
    else if ('leave' in step) meeting.leave(step.leave);
    else await sleep(step.pauseMs);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
