/**
 * The speech engine's variables (STT_*), read here and nowhere else. Any OpenAI-compatible
 * transcription endpoint works: OpenAI itself, a whisper.cpp or faster-whisper server, a gateway.
 * Unset STT_BASE_URL means no engine: meetings are transcribed from captions only.
 */
import { z } from 'zod';
import { envInt, envMs, envString, parseEnv } from '@notetaker/config';
import { engineBaseUrl } from '../engine-base-url.js';

export interface SpeechEngineSettings {
  /** Up to and including the API version: requests go to `${baseUrl}/audio/transcriptions`. */
  baseUrl: string;
  /** Sent as a Bearer token; never logged. */
  apiKey: string | null;
  model: string;
  /** Requests in flight at once per worker process (all its meetings together). */
  concurrency: number;
  /** One attempt's limit; a final may make three. */
  timeoutMs: number;
  /** Seconds of audio one meeting may send (partials included) before it goes on without. */
  maxAudioSeconds: number;
  /**
   * Seconds of finals' audio the engine may hold (waiting for a slot or being sent), all meetings
   * together, and one meeting's share: an utterance past either is not sent but marked
   * untranscribed, with a warning, so a slow engine costs bounded memory (16 kHz PCM: 32 kB a second).
   */
  maxQueuedSeconds: number;
  meetingMaxQueuedSeconds: number;
}

export const SPEECH_ENGINE_DEFAULTS = {
  model: 'whisper-1',
  concurrency: 4,
  timeoutMs: 30_000,
  maxAudioSeconds: 4 * 60 * 60,
  maxQueuedSeconds: 600,
  meetingMaxQueuedSeconds: 120,
} as const;

export const speechEngineEnv = z.object({
  /** e.g. https://api.openai.com/v1 (with the version, without /audio/transcriptions). */
  STT_BASE_URL: engineBaseUrl('STT_API_KEY', '/audio/transcriptions'),
  STT_API_KEY: envString,
  STT_MODEL: z.string().trim().min(1).default(SPEECH_ENGINE_DEFAULTS.model),
  STT_CONCURRENCY: envInt(SPEECH_ENGINE_DEFAULTS.concurrency, 1, 256),
  STT_TIMEOUT_MS: envMs(SPEECH_ENGINE_DEFAULTS.timeoutMs),
  STT_MAX_AUDIO_SECONDS: envInt(SPEECH_ENGINE_DEFAULTS.maxAudioSeconds, 0),
  STT_MAX_QUEUED_SECONDS: envInt(SPEECH_ENGINE_DEFAULTS.maxQueuedSeconds, 30, 24 * 60 * 60),
  STT_MEETING_MAX_QUEUED_SECONDS: envInt(SPEECH_ENGINE_DEFAULTS.meetingMaxQueuedSeconds, 30, 24 * 60 * 60),
});

/** The engine's settings, or null when STT_BASE_URL is unset. Throws ConfigError naming every bad variable. */
export function speechEngineSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SpeechEngineSettings | null {
  const e = parseEnv(speechEngineEnv, env);
  if (!e.STT_BASE_URL) return null;
  return {
    baseUrl: e.STT_BASE_URL,
    apiKey: e.STT_API_KEY ?? null,
    model: e.STT_MODEL,
    concurrency: e.STT_CONCURRENCY,
    timeoutMs: e.STT_TIMEOUT_MS,
    maxAudioSeconds: e.STT_MAX_AUDIO_SECONDS,
    maxQueuedSeconds: e.STT_MAX_QUEUED_SECONDS,
    meetingMaxQueuedSeconds: Math.min(e.STT_MEETING_MAX_QUEUED_SECONDS, e.STT_MAX_QUEUED_SECONDS),
  };
}
