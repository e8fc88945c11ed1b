/** The test speech engine (OpenAI's transcriptions API over pocketsphinx) and speech to feed it. */
export { speechEngineForSuite } from './fixture.js';
export {
  startSpeechEngine,
  type FailureOptions,
  type SpeechEngine,
  type SpeechEngineOptions,
  type TranscriptionRequestLog,
} from './server.js';
export { joined, PLAIN_VOICE, silence, spokenPcm, spokenSeconds, spokenWav, VOICES, wavOf } from './spoken.js';
export type { SpokenAudio, Voice } from './spoken.js';
