/**
 * The bot's voice (issue 51): `speak` makes the bot say a text (through the instance's speech
 * engine) or play audio in a live meeting, through its own microphone, turned on for it and off
 * after. Answered by meeting-session's registry, which hands it to the meeting's actor.
 */
import { defineCapability, WRITE } from '../capability.js';
import { speakRequest, speakResponse } from '../rest/speech.js';
import { BODY_TOO_LARGE, NOT_OWNED } from './meetings.js';

/** The 400 of a text to say on an instance with no speech engine. */
export const NO_SPEECH_OUTPUT = 'text needs a speech engine: set TTS_BASE_URL (or send audio)';

export const speak = defineCapability({
  name: 'speak',
  bus: { service: 'meetings', verb: 'speak', scope: 'caller' },
  input: speakRequest,
  output: speakResponse,
  errors: {
    404: NOT_OWNED,
    409: 'The meeting is not live (the bot is not in the call)',
    413: BODY_TOO_LARGE,
  },
  rest: {
    method: 'post',
    path: '/meetings/:meetingId/speak',
    status: 202,
    summary: 'Make the bot say a text (or play audio) in the meeting, microphone on while it speaks',
    description:
      'Queued: speech_started, speech_finished (or speech_failed) follow as events, and what the bot said as a segment (source bot)',
  },
  tool: {
    title: 'Speak in a meeting',
    description:
      'Makes the bot say `text` aloud in a live meeting this API key started (or play base64 `audio`): it turns ' +
      'its microphone on, speaks, and turns it off. Requests are said in order; `interrupt: true` stops what is ' +
      'being said and says this instead. What the bot said joins the transcript under its name.',
    annotations: { ...WRITE, openWorldHint: true },
    text: (b) => `Speech for meeting ${b.meetingId} is ${b.status}.`,
  },
});

export const SPEECH_CAPABILITIES = [speak] as const;
