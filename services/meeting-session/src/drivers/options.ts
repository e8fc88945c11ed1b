/** How the driver factory is configured, and how the environment maps onto it. */

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
  captionIdleMs?: number;
  /** Teams: a caption row unchanged this long is final. Default 900 ms. */
  teamsCaptionIdleMs?: number;
  /** Waiting in the lobby longer than this fails with lobby_timeout. Default 10 minutes. */
  lobbyTimeoutMs?: number;
  /** Getting from the link to the lobby or the call longer than this fails with join_failed. Default 60 s. */
  joinTimeoutMs?: number;
  /** How often the page is read (captions also arrive at once through an observer). Default 250 ms. */
  pollIntervalMs?: number;
  /** Meetings sharing one browser before another is launched. Default 10; 1 = a browser per meeting. */
  meetingsPerBrowser?: number;
  /** Live, and no caption can be read (or turned on) this long: the meeting is blind. Default 20 s. */
  captionBlindAfterMs?: number;
}

export const DRIVER_DEFAULTS = {
  headless: true,
  displayName: 'Notetaker',
  captionIdleMs: 1_500,
  teamsCaptionIdleMs: 900,
  lobbyTimeoutMs: 10 * 60_000,
  joinTimeoutMs: 60_000,
  pollIntervalMs: 250,
  meetingsPerBrowser: 10,
  captionBlindAfterMs: 20_000,
} as const;

/**
 * CHROME_PATH, BOT_HEADLESS (default true), BOT_BROWSER_ARGS (a JSON array of strings: flags such
 * as --host-resolver-rules contain spaces), BOT_DISPLAY_NAME and CAPTION_BLIND_AFTER_MS. Throws on
 * a malformed BOT_BROWSER_ARGS rather than launching a browser with half of the intended flags.
 */
export function driverOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DriverFactoryOptions {
  const options: DriverFactoryOptions = {};
  if (env.CHROME_PATH) options.chromePath = env.CHROME_PATH;
  if (env.BOT_HEADLESS !== undefined && env.BOT_HEADLESS !== '') {
    options.headless = !/^(false|0|no|off)$/i.test(env.BOT_HEADLESS.trim());
  }
  if (env.BOT_BROWSER_ARGS) {
    let args: unknown;
    try {
      args = JSON.parse(env.BOT_BROWSER_ARGS);
    } catch {
      args = null;
    }
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
      throw new Error('BOT_BROWSER_ARGS must be a JSON array of strings, e.g. ["--lang=en-US"]');
    }
    options.extraArgs = args;
  }
  if (env.BOT_DISPLAY_NAME?.trim()) options.displayName = env.BOT_DISPLAY_NAME.trim();
  if (env.CAPTION_BLIND_AFTER_MS) {
    const ms = Number(env.CAPTION_BLIND_AFTER_MS);
    if (!Number.isInteger(ms) || ms < 1000) throw new Error('CAPTION_BLIND_AFTER_MS must be a whole number of milliseconds, at least 1000');
    options.captionBlindAfterMs = ms;
  }
  return options;
}
