/** The conversation the whole-stack transcription cases play. */
import { correctedTurn, growWords, type SimMeeting } from '../../simulators/index.js';

/** Alice's turn with a correction and re-punctuation, then Bob taking over, which ends hers. */
export async function aliceThenBob(meeting: SimMeeting): Promise<void> {
  await meeting.speak('Alice Example', correctedTurn());
  await meeting.speak('Bob Jones', growWords('Great, then I will update the release notes.'));
}
