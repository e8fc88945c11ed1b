/**
 * `speak` at the registry: the owner check (another key's meeting is a 404, as for stop), the
 * rules a schema cannot say (text or audio; a text needs TTS_BASE_URL; audio must be a WAV, Ogg or
 * MP3 file), then the command to the meeting's actor, which queues it while the bot is live (409
 * otherwise).
 */
import { errors, NO_SPEECH_OUTPUT, ServiceError, type RequestOf, type routes } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import { speakSubject, type SpeakCommand } from '../speech/actor-speech.js';
import type { Records } from './records.js';

const NOT_LIVE = 'The meeting is not live: the bot is not in the call';
const ACTOR_TIMEOUT_MS = 5_000;

export interface SpeakDeps {
  bus: Bus;
  records: Records;
  /** A speech output engine is configured (TTS_BASE_URL). */
  speechOutput: boolean;
}

export async function speak(
  deps: SpeakDeps,
  request: RequestOf<typeof routes.meetings.speak>,
): Promise<{ meetingId: string; status: 'queued' }> {
  const { caller, meetingId, text, audio, voice, interrupt } = request;
  if ((text === undefined) === (audio === undefined))
    throw errors.badRequest('text or audio is required (one of them, not both)', 'text');
  if (audio !== undefined && !isAudioFile(audio))
    throw errors.badRequest('audio must be base64 of a WAV, Ogg or MP3 file', 'audio');
  const doc = await deps.records.owned(caller, meetingId);
  if (text !== undefined && !deps.speechOutput) throw errors.badRequest(NO_SPEECH_OUTPUT, 'TTS_BASE_URL');
  if (doc.status !== 'live') throw errors.conflict(NOT_LIVE);
  const command: SpeakCommand = { text, audio, voice, interrupt };
  try {
    return (await deps.bus.request(speakSubject(meetingId), command, { timeoutMs: ACTOR_TIMEOUT_MS })) as {
      meetingId: string;
      status: 'queued';
    };
  } catch (err) {
    // Nobody hosts the actor any more: the meeting is on its way out.
    if (err instanceof ServiceError && err.code === 'no_responders') throw errors.conflict(NOT_LIVE);
    throw err;
  }
}

/** The file's first bytes: RIFF....WAVE, OggS, an ID3 tag or an MPEG audio frame's sync. */
function isAudioFile(base64: string): boolean {
  const head = Buffer.from(base64.slice(0, 16), 'base64');
  if (head.length < 4) return false;
  const ascii = head.toString('latin1');
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WAVE') return true;
  if (ascii.startsWith('OggS') || ascii.startsWith('ID3')) return true;
  return head[0] === 0xff && (head[1] & 0xe0) === 0xe0;
}
