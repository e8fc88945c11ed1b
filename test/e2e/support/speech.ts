/**
 * The bot's voice in the whole-stack tests: the speech output engine the stack speaks through
 * (espeak-ng behind /v1/audio/speech), the speech engine that recognizes what the simulated call
 * heard of the bot's microphone (pocketsphinx with a grammar of SPOKEN), and POST /speak.
 */
import { encodeWav } from '../../../services/meeting-session/src/transcription/wav.js';
import { speechEngineForSuite, type SpeechEngine } from '../../support/speech-engine/index.js';
import { speechOutputForSuite, type SpeechOutputEngine } from '../../support/speech-output/server.js';
import { MIC_RATE, type MicrophoneLog } from '../../simulators/microphone.js';
import type { StartedMeeting, World } from './world.js';

/** What the bot says in these tests: plain words the recognizer's grammar knows. */
export const SPOKEN = [
  'the budget review moves to thursday',
  'please send the slides before noon',
  'we should ship the release on friday',
  'let us meet again next week',
] as const;
/** Long enough to be cut: the first three sentences as one speech. */
export const LONG_SPEECH = `${SPOKEN[0]} and ${SPOKEN[1]} and ${SPOKEN[2]}`;

/** The stack's speech output engine: its TTS_* go into `env` (register before useWorld). */
export function useSpeechOutput(env: Record<string, string>): () => SpeechOutputEngine {
  return speechOutputForSuite({ apiKey: 'sk-test-tts' }, (engine) => Object.assign(env, engine.env()));
}

/**
 * The recognizer. With `env`, the stack's speech engine too (its STT_* go into it: meetings that
 * ask for `transcription: audio` are transcribed by it); without, apart from the stack.
 */
export function useRecognizer(env?: Record<string, string>): () => SpeechEngine {
  return speechEngineForSuite({ sentences: SPOKEN, apiKey: 'sk-test-stt' }, (engine) => {
    if (env) Object.assign(env, engine.env());
  });
}

/** What the recognizer heard in the call's audio of the bot's microphone since `since` (epoch ms). */
export async function recognize(engine: SpeechEngine, mic: MicrophoneLog, since = 0): Promise<string> {
  const pcm = mic.pcm(since);
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.byteLength / 2));
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(encodeWav(samples, MIC_RATE))], { type: 'audio/wav' }), 'mic.wav');
  form.append('model', 'whisper-1');
  const res = await fetch(`${engine.url}/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${engine.apiKey}` },
    body: form,
  });
  if (!res.ok) throw new Error(`the recognizer answered ${res.status}: ${await res.text()}`);
  return String(((await res.json()) as { text: string }).text);
}

export const speak = (
  world: World,
  meeting: Pick<StartedMeeting, 'meetingId' | 'token'>,
  body: unknown,
  apiKey?: string,
) =>
  world.t.api(`/meetings/${meeting.meetingId}/speak`, {
    method: 'POST',
    json: body,
    apiKey: apiKey ?? meeting.token.apiKey,
  });
