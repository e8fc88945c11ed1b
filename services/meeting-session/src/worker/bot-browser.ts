/**
 * Whether this worker has a browser for its bots, and getting one where it may (issue 32: a
 * newcomer's `npm start` on a machine without Chromium said 201 to starts it could not do).
 *
 * Looked for at start and again on every heartbeat and placement (one access() call), so a
 * browser installed, or a CHROME_PATH fixed, later is picked up without a restart. The worker
 * tells the registry in its heartbeat, and the registry refuses starts up front while no live
 * worker has one. Where none is found and CHROME_PATH is unset, a process that may install
 * packages (root, apt-get on the PATH: what `npm test` does too) installs Debian's chromium in
 * the background of its start, unless BOT_INSTALL_BROWSER=false; bots are available once it ends.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Logger } from '@notetaker/observability';
import { CHROME_CANDIDATES, findChrome, firstExecutable } from '@notetaker/find-chrome';

/** What /readyz says about the bots (a field: readiness never fails for it). */
export interface BotsStatus {
  available: boolean;
  /** The browser the bots launch. */
  browser?: string;
  /** Unavailable: why, and the command that fixes it. */
  reason?: string;
  fix?: string;
  installing?: boolean;
}

export interface BrowserInstaller {
  /** The command, as the log line and /readyz name it. */
  command: string;
  run(): Promise<void>;
}

export const BROWSER_FIX =
  'apt-get install -y chromium (as root), or set CHROME_PATH to a Chromium or Chrome executable';

export interface BotBrowserOptions {
  /** CHROME_PATH: only this one is looked at when set. */
  chromePath: string | null;
  /** Where to look when CHROME_PATH is unset (tests give their own). */
  candidates?: readonly string[];
  /** Run at start when nothing is found; null: none (not allowed, or BOT_INSTALL_BROWSER=false). */
  installer: BrowserInstaller | null;
  logger: Logger;
}

export class BotBrowser {
  private found: string | null;
  private installing = false;
  private failure: string | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: BotBrowserOptions) {
    this.found = this.look();
  }

  /** Called once at the worker's start: nothing to do, an install in the background, or one warning. */
  start(): void {
    const { installer, logger } = this.options;
    if (this.found) return;
    if (!installer) {
      logger.warn(
        { reason: this.missing(), fix: BROWSER_FIX },
        `bots unavailable: ${this.missing()}; fix: ${BROWSER_FIX}`,
      );
      return;
    }
    this.installing = true;
    logger.info(
      { command: installer.command },
      `no browser for the bots: installing Chromium (${installer.command}); BOT_INSTALL_BROWSER=false skips this`,
    );
    void installer
      .run()
      .then(
        () => `it finished but ${this.missing()}`,
        (err: Error) => err.message,
      )
      .then((failure) => {
        this.installing = false;
        this.found = this.look();
        if (this.found) {
          logger.info({ browser: this.found }, `Chromium installed at ${this.found}: bots available`);
        } else {
          this.failure = `installing Chromium failed: ${failure}`;
          logger.error(
            { reason: this.failure, fix: BROWSER_FIX },
            `${this.failure}; bots unavailable; fix: ${BROWSER_FIX}`,
          );
        }
        this.changed();
      });
  }

  /** Looks again; true when the bots have a browser. A change is logged and told to the listeners. */
  check(): boolean {
    const now = this.look();
    if (now === this.found) return now !== null;
    this.found = now;
    // While installing, the install's own line says how it ended.
    if (!this.installing) {
      if (now) this.options.logger.info({ browser: now }, `browser found at ${now}: bots available`);
      else
        this.options.logger.warn(
          { reason: this.missing() },
          `bots unavailable: ${this.missing()}; fix: ${BROWSER_FIX}`,
        );
    }
    this.changed();
    return now !== null;
  }

  status(): BotsStatus {
    if (this.check() && this.found) return { available: true, browser: this.found };
    if (this.installing) {
      return {
        available: false,
        installing: true,
        reason: `installing Chromium (${this.options.installer?.command})`,
        fix: BROWSER_FIX,
      };
    }
    return { available: false, reason: this.failure ?? this.missing(), fix: BROWSER_FIX };
  }

  /** `listener` runs when a browser appears or goes (the worker then renews its lease at once). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private look(): string | null {
    return findChrome(this.options.chromePath ?? undefined, this.options.candidates);
  }

  private missing(): string {
    const { chromePath, candidates = CHROME_CANDIDATES } = this.options;
    return chromePath
      ? `CHROME_PATH=${chromePath} is not an executable`
      : `no Chromium or Chrome found (looked for ${candidates.join(', ')})`;
  }
}

/** Debian's chromium through apt-get, where this process may install packages; else null. */
export function aptInstaller(): BrowserInstaller | null {
  if (process.getuid?.() !== 0 || !onPath('apt-get')) return null;
  return {
    command: 'apt-get update && apt-get install -y chromium',
    async run() {
      await run('apt-get', ['update', '-qq']);
      await run('apt-get', ['install', '-y', '-qq', 'chromium']);
    },
  };
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const last = String(stderr).trim().split('\n').at(-1) || err.message;
      reject(new Error(`${file} ${args.join(' ')} exited with ${err.code ?? err.signal}: ${last}`));
    });
  });
}

function onPath(command: string): boolean {
  return firstExecutable((process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, command))) !== null;
}
