/**
 * meeting-session's own environment variables (the shared ones are in @notetaker/config).
 * Durations are milliseconds so tests can shrink them; defaults are the product's rules.
 */
import { z } from 'zod';
import { recordingMode, type RecordingMode } from '@notetaker/contracts';
import { baseEnvSchema, envBool, envInt, envJsonStrings, envMs, envString, parseEnv } from '@notetaker/config';
import { badPattern } from './actor/bot-names.js';
import type { LlmSettings } from '@notetaker/llm';
import { DRIVER_DEFAULTS, driverEnv } from './drivers/options.js';
import { JOIN_TIMEOUT_DEFAULT_MS, LOBBY_TIMEOUT_DEFAULT_MS } from './limits.js';
import { speechEngineSettingsFromEnv, type SpeechEngineSettings } from './transcription/speech-engine-config.js';
import { textToSpeechSettingsFromEnv, type TextToSpeechSettings } from './speech/text-to-speech-config.js';

export const meetingSessionEnv = driverEnv.extend({
  /** all (registry and worker in one process, the default), registry (no browsers) or worker (browsers only). */
  MEETING_SESSION_ROLE: z.enum(['all', 'registry', 'worker']).default('all'),
  MAX_MEETINGS_PER_WORKER: envInt(10, 1, 1000),
  /** Install Debian's chromium at start when no browser is found and the process may (root, apt-get, no CHROME_PATH). */
  BOT_INSTALL_BROWSER: envBool(true),
  /** How long a start waits for a seat whose meeting is stopping, when every seat is taken. */
  SEAT_WAIT_MS: envMs(5_000),
  FLUSH_INTERVAL_MS: envMs(10_000),
  ALONE_TIMEOUT_MS: envMs(60_000),
  /**
   * More names of other bots (a JSON array of case-insensitive regular expressions), beside the
   * common notetakers' (actor/bot-names.ts): bots do not count as people for ALONE_TIMEOUT_MS.
   */
  BOT_NAME_PATTERNS: envJsonStrings.superRefine((patterns, ctx) => {
    for (const pattern of patterns) {
      const why = badPattern(pattern);
      if (why)
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)} is not a regular expression: ${why}` });
    }
  }),
  /** From the start until the bot reaches the lobby or is admitted; past it the meeting ends in error join_failed. */
  JOIN_TIMEOUT_MS: envMs(JOIN_TIMEOUT_DEFAULT_MS),
  /** From entering the lobby until admission; past it the meeting ends in error lobby_timeout. */
  LOBBY_TIMEOUT_MS: envMs(LOBBY_TIMEOUT_DEFAULT_MS),
  MAX_MEETING_DURATION_MS: envMs(4 * 60 * 60_000),
  /** A worker that has not renewed its lease for this long is lost; its meetings end in error. */
  WORKER_LEASE_MS: envMs(15_000),
  /**
   * How long a stopping worker (SIGTERM: scale-in, upgrade, node drain) lets its meetings go on and
   * end by themselves before it leaves them (`ended` / `worker_shutdown`); 0 leaves them at once.
   */
  WORKER_STOP_GRACE_MS: envMs(0),
  /** How long a stopping worker waits for its meetings to leave and flush before it gives up. */
  WORKER_DRAIN_MS: envMs(15_000),
  /** How long an ended meeting's events stay in the event log for consumers catching up. */
  EVENT_LOG_RETENTION_MS: envMs(7 * 24 * 60 * 60_000),
  // The model coach: the task runner's model (LLM_*), or COACH_MODEL on the same endpoint.
  ...baseEnvSchema.pick({ LLM_BASE_URL: true, LLM_API_KEY: true, LLM_MODEL: true }).shape,
  COACH_MODEL: z.string().trim().optional(),
  /** At most one model call per meeting this often, and only when new words came. */
  COACH_INTERVAL_MS: envMs(60_000),
  /** A model call not answered in this time is abandoned (the next one comes an interval later). */
  COACH_TIMEOUT_MS: envMs(30_000),
  /** Prompt and answer tokens one meeting may spend on the model coach; 0 turns the model coach off. */
  COACH_MAX_TOKENS_PER_MEETING: envInt(250_000, 0),
  /** A start's `recording` when it names none: none (the default) or audio for every meeting. */
  RECORDING_DEFAULT: recordingMode.default('none'),
  /** Where the worker spools recorded audio storage has not taken yet (default DATA_DIR/recording-spool). */
  RECORDING_SPOOL_DIR: envString,
  /** The spool's limit in MB (decimals allowed); default an hour of audio for every seat (RECORDING_SPOOL_MB_PER_SEAT each). */
  RECORDING_SPOOL_MAX_MB: z.coerce.number({ error: 'must be a number of MB' }).positive('must be above 0').optional(),
  /** One append attempt's wait for storage; then the same batch is sent again (storage stores it once). */
  RECORDING_APPEND_TIMEOUT_MS: envMs(10_000),
  /** Posted in every meeting's chat once the bot is in (a start's announcement wins); empty: none. */
  BOT_ANNOUNCEMENT: z.string().trim().max(500, 'must be at most 500 characters').default(''),
});

/**
 * An hour of one meeting's recording, with room to spare: Opus at 32 kbit/s is 14.4 MB an hour,
 * 14.6 MB with the Ogg pages' headers (a page a second); silence takes far less.
 */
export const RECORDING_SPOOL_MB_PER_SEAT = 16;

export interface MeetingSessionConfig {
  role: 'all' | 'registry' | 'worker';
  /** The bots' name in meetings (BOT_DISPLAY_NAME). */
  displayName: string;
  /** CHROME_PATH, when set. */
  chromePath: string | null;
  installBrowser: boolean;
  maxMeetingsPerWorker: number;
  seatWaitMs: number;
  flushIntervalMs: number;
  aloneTimeoutMs: number;
  /** The operator's patterns of other bots' names (BOT_NAME_PATTERNS), beside the defaults. */
  botNamePatterns: string[];
  joinTimeoutMs: number;
  lobbyTimeoutMs: number;
  maxDurationMs: number;
  workerLeaseMs: number;
  workerStopGraceMs: number;
  workerDrainMs: number;
  eventLogRetentionMs: number;
  /** Renewal and sweep period: a third of the lease, so one lost heartbeat is not a death. */
  heartbeatMs: number;
  coach: CoachConfig;
  recordingDefault: RecordingMode;
  recordingSpool: {
    /** RECORDING_SPOOL_DIR, or null: DATA_DIR/recording-spool. */
    dir: string | null;
    maxBytes: number;
    appendTimeoutMs: number;
  };
  /** The speech engine for transcription from audio (STT_*), or null: captions only. */
  speech: SpeechEngineSettings | null;
  /** BOT_ANNOUNCEMENT: the chat notice of a meeting whose start gives none; null or absent: none. */
  announcement?: string | null;
  /** The speech output engine (TTS_*): null when TTS_BASE_URL is unset. */
  textToSpeech: TextToSpeechSettings | null;
}

export interface CoachConfig {
  /** The endpoint (LLM_BASE_URL, LLM_API_KEY) and the model: COACH_MODEL, else LLM_MODEL. */
  llm: LlmSettings;
  intervalMs: number;
  timeoutMs: number;
  maxTokensPerMeeting: number;
}

export function loadMeetingSessionConfig(env: NodeJS.ProcessEnv): MeetingSessionConfig {
  const e = parseEnv(meetingSessionEnv, env);
  return {
    role: e.MEETING_SESSION_ROLE,
    displayName: e.BOT_DISPLAY_NAME || DRIVER_DEFAULTS.displayName,
    chromePath: e.CHROME_PATH || null,
    installBrowser: e.BOT_INSTALL_BROWSER,
    maxMeetingsPerWorker: e.MAX_MEETINGS_PER_WORKER,
    seatWaitMs: e.SEAT_WAIT_MS,
    flushIntervalMs: e.FLUSH_INTERVAL_MS,
    aloneTimeoutMs: e.ALONE_TIMEOUT_MS,
    botNamePatterns: e.BOT_NAME_PATTERNS,
    joinTimeoutMs: e.JOIN_TIMEOUT_MS,
    lobbyTimeoutMs: e.LOBBY_TIMEOUT_MS,
    maxDurationMs: e.MAX_MEETING_DURATION_MS,
    workerLeaseMs: e.WORKER_LEASE_MS,
    workerStopGraceMs: e.WORKER_STOP_GRACE_MS,
    workerDrainMs: e.WORKER_DRAIN_MS,
    eventLogRetentionMs: e.EVENT_LOG_RETENTION_MS,
    heartbeatMs: Math.max(50, Math.floor(e.WORKER_LEASE_MS / 3)),
    coach: {
      llm: { baseUrl: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY, model: e.COACH_MODEL || e.LLM_MODEL },
      intervalMs: e.COACH_INTERVAL_MS,
      timeoutMs: e.COACH_TIMEOUT_MS,
      maxTokensPerMeeting: e.COACH_MAX_TOKENS_PER_MEETING,
    },
    recordingDefault: e.RECORDING_DEFAULT,
    recordingSpool: {
      dir: e.RECORDING_SPOOL_DIR ?? null,
      maxBytes: Math.round(
        (e.RECORDING_SPOOL_MAX_MB ?? RECORDING_SPOOL_MB_PER_SEAT * e.MAX_MEETINGS_PER_WORKER) * 1_000_000,
      ),
      appendTimeoutMs: e.RECORDING_APPEND_TIMEOUT_MS,
    },
    speech: speechEngineSettingsFromEnv(env),
    announcement: e.BOT_ANNOUNCEMENT || null,
    textToSpeech: textToSpeechSettingsFromEnv(env),
  };
}
