/** How the driver factory is configured, and how the environment maps onto it. */
import { z } from 'zod';
import { envBool, envJsonStrings, parseEnv } from '@notetaker/config';
import { JOIN_TIMEOUT_DEFAULT_MS, LOBBY_TIMEOUT_DEFAULT_MS } from '../limits.js';
import {
  DEFAULT_VIDEO_SAVINGS,
  DEFAULT_WINDOW_SIZE,
  videoSavingsEnv,
  windowSizeEnv,
  type VideoSaving,
  type WindowSize,
} from './video/settings.js';

export interface DriverFactoryOptions {
  /** Chromium or Chrome to launch; by default the first of /usr/bin/chromium, chromium-browser, google-chrome. */
  chromePath?: string;
  /** Default true. */
  headless?: boolean;
  /** Appended to the launch flags (tests add --host-resolver-rules and --ignore-certificate-errors). */
  extraArgs?: string[];
  /** The bot's name when a join target has none. Default "Notetaker". */
  displayName?: string;
  /** Google Meet: a caption turn unchanged this long is final. Default 1,500 ms. */
  meetCaptionIdleMs?: number;
  /** Teams: a caption row unchanged this long is final. Default 900 ms. */
  teamsCaptionIdleMs?: number;
  /** Zoom: a caption line unchanged this long is final. Default 1,000 ms. */
  zoomCaptionIdleMs?: number;
  /** Waiting in the lobby longer than this fails with lobby_timeout. Default: the service's (limits.ts). */
  lobbyTimeoutMs?: number;
  /** Getting from the link to the lobby or the call longer than this fails with join_failed. Default: the service's. */
  joinTimeoutMs?: number;
  /** How often the page is read (captions also arrive at once through an observer). Default 250 ms. */
  pollIntervalMs?: number;
  /**
   * In the call, once captions are on and the bot's own steps are done, how often a meeting not
   * transcribed from its audio is read (its captions still come at once). Default 1,000 ms.
   */
  livePollIntervalMs?: number;
  /** Meetings sharing one browser before another is launched. Default 10; 1 = a browser per meeting. */
  meetingsPerBrowser?: number;
  /** Live, and no caption can be read (or turned on) this long: the meeting is blind. Default 20 s. */
  captionBlindAfterMs?: number;
  /**
   * Joining, and the page shows one screen the bot cannot get past this long (one no rule knows, or
   * a known one it cannot act on; the lobby and a meeting not started are waits): join_screen_unknown. Default 15 s.
   */
  unknownScreenWarnMs?: number;
  /** What the bot does to decode no video (video/settings.ts). Default: every step. */
  videoSavings?: readonly VideoSaving[];
  /** The browser window's size; the platforms send video at the size of its tiles. Default 1280x720. */
  windowSize?: WindowSize;
}

export const DRIVER_DEFAULTS = {
  headless: true,
  displayName: 'Notetaker',
  meetCaptionIdleMs: 1_500,
  teamsCaptionIdleMs: 900,
  zoomCaptionIdleMs: 1_000,
  lobbyTimeoutMs: LOBBY_TIMEOUT_DEFAULT_MS,
  joinTimeoutMs: JOIN_TIMEOUT_DEFAULT_MS,
  pollIntervalMs: 250,
  livePollIntervalMs: 1_000,
  meetingsPerBrowser: 10,
  captionBlindAfterMs: 20_000,
  unknownScreenWarnMs: 15_000,
  videoSavings: DEFAULT_VIDEO_SAVINGS,
  windowSize: DEFAULT_WINDOW_SIZE,
} as const;

/**
 * The drivers' variables, read here and nowhere else (meeting-session's configuration includes
 * them, so a bad value stops the service at start): CHROME_PATH, BOT_HEADLESS (default true),
 * BOT_BROWSER_ARGS (a JSON array of strings: flags such as --host-resolver-rules contain spaces),
 * BOT_DISPLAY_NAME, CAPTION_BLIND_AFTER_MS, BOT_VIDEO_SAVINGS and BOT_WINDOW_SIZE (video/settings.ts).
 */
export const driverEnv = z.object({
  CHROME_PATH: z.string().optional(),
  BOT_HEADLESS: envBool(DRIVER_DEFAULTS.headless),
  BOT_BROWSER_ARGS: envJsonStrings,
  BOT_DISPLAY_NAME: z.string().trim().max(100, 'must be at most 100 characters').optional(),
  CAPTION_BLIND_AFTER_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int()
    .min(1000, 'must be at least 1000')
    .optional(),
  BOT_VIDEO_SAVINGS: videoSavingsEnv.optional(),
  BOT_WINDOW_SIZE: windowSizeEnv.optional(),
});

/** Driver options from the environment; unset variables are left to DRIVER_DEFAULTS. Throws ConfigError. */
export function driverOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DriverFactoryOptions {
  const e = parseEnv(driverEnv, env);
  const options: DriverFactoryOptions = {};
  if (e.CHROME_PATH) options.chromePath = e.CHROME_PATH;
  if (env.BOT_HEADLESS) options.headless = e.BOT_HEADLESS;
  if (e.BOT_BROWSER_ARGS.length > 0) options.extraArgs = e.BOT_BROWSER_ARGS;
  if (e.BOT_DISPLAY_NAME) options.displayName = e.BOT_DISPLAY_NAME;
  if (e.CAPTION_BLIND_AFTER_MS) options.captionBlindAfterMs = e.CAPTION_BLIND_AFTER_MS;
  if (e.BOT_VIDEO_SAVINGS) options.videoSavings = e.BOT_VIDEO_SAVINGS;
  if (e.BOT_WINDOW_SIZE) options.windowSize = e.BOT_WINDOW_SIZE;
  return options;
}
