/**
 * The speech output engine's variables (TTS_*), read here and nowhere else. Any OpenAI-compatible
 * `POST <base>/audio/speech` works: OpenAI itself, a Kokoro or Piper server, a gateway. Unset
 * TTS_BASE_URL: no engine, and `speak` takes audio only (a text is a 400 naming TTS_BASE_URL).
 */
import { z } from 'zod';
import { envMs, envString, parseEnv } from '@notetaker/config';
import { engineBaseUrl } from '../engine-base-url.js';

export interface TextToSpeechSettings {
  /** Up to and including the API version: requests go to `${baseUrl}/audio/speech`. */
  baseUrl: string;
  /** Sent as a Bearer token; never logged. */
  apiKey: string | null;
  model: string;
  /** The voice when a request names none. */
  voice: string;
  timeoutMs: number;
}

export const TEXT_TO_SPEECH_DEFAULTS = { model: 'tts-1', voice: 'alloy', timeoutMs: 30_000 } as const;

export const textToSpeechEnv = z.object({
  TTS_BASE_URL: engineBaseUrl('TTS_API_KEY', '/audio/speech'),
  TTS_API_KEY: envString,
  TTS_MODEL: z.string().trim().min(1).default(TEXT_TO_SPEECH_DEFAULTS.model),
  TTS_VOICE: z.string().trim().min(1).default(TEXT_TO_SPEECH_DEFAULTS.voice),
  TTS_TIMEOUT_MS: envMs(TEXT_TO_SPEECH_DEFAULTS.timeoutMs),
});

/** The engine's settings, or null when TTS_BASE_URL is unset. Throws ConfigError naming every bad variable. */
export function textToSpeechSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TextToSpeechSettings | null {
  const e = parseEnv(textToSpeechEnv, env);
  if (!e.TTS_BASE_URL) return null;
  return {
    baseUrl: e.TTS_BASE_URL,
    apiKey: e.TTS_API_KEY ?? null,
    model: e.TTS_MODEL,
    voice: e.TTS_VOICE,
    timeoutMs: e.TTS_TIMEOUT_MS,
  };
}
