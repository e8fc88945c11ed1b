/**
 * The bot speaks (docs/api/reference.md#speak): text synthesized by the instance's speech engine
 * (TTS_BASE_URL), or audio the caller made, played into the meeting through the bot's microphone.
 */
import { z } from 'zod';

export const SPEAK_TEXT_MAX = 2_000;
/** Base64 of the audio: what fits the 1 MB body limit (about 750 kB of WAV, Ogg or MP3). */
export const SPEAK_AUDIO_MAX_CHARS = 1_000_000;

const meetingIdField = z
  .string({ error: 'meetingId is required and must be a string' })
  .min(1, 'meetingId is required')
  .describe('The meeting id returned by start_meeting, like meeting_1700000000000_AbCdEf1234.');

const speakText = z
  .string({ error: 'text must be a string' })
  .trim()
  .min(1, 'text must not be empty')
  .max(SPEAK_TEXT_MAX, `text must be at most ${SPEAK_TEXT_MAX} characters`)
  .describe('What the bot says, synthesized by the speech engine (TTS_BASE_URL).');

const speakAudio = z
  .string({ error: 'audio must be a base64 string' })
  .min(1, 'audio must not be empty')
  .max(SPEAK_AUDIO_MAX_CHARS, 'audio must be at most 1,000,000 base64 characters')
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'audio must be base64')
  .describe('Base64 of a WAV, Ogg or MP3 file the bot plays as it is.');

export const speakRequest = z
  .strictObject({
    meetingId: meetingIdField,
    text: speakText.optional(),
    audio: speakAudio.optional(),
    voice: z
      .string({ error: 'voice must be a string' })
      .trim()
      .min(1, 'voice must not be empty')
      .max(100, 'voice must be at most 100 characters')
      .optional()
      .describe("The engine's voice for this text (default TTS_VOICE)."),
    interrupt: z
      .boolean({ error: 'interrupt must be a boolean' })
      .optional()
      .describe('Stops what the bot is saying (and drops what is queued) and says this instead.'),
  })
  // Text or audio, one of them: the registry says so (a refinement here would not survive the REST binding's omit).
  .describe('text or audio, one of them');
export type SpeakRequest = z.infer<typeof speakRequest>;

export const speakResponse = z.object({ meetingId: z.string(), status: z.literal('queued') });
export type SpeakResponse = z.infer<typeof speakResponse>;
