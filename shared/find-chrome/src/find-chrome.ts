/**
 * Where a Chromium or Chrome is: the bots' browser (meeting-session looks for it at start and on
 * every heartbeat, without loading puppeteer) and the one `bot-account login` opens (gateway).
 */
import { accessSync, constants } from 'node:fs';

/** Where Debian, Ubuntu and Google's packages put it, in order of preference. */
export const CHROME_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/** `chromePath` if given (and executable), else the first Chromium or Chrome found among `candidates`. */
export function findChrome(chromePath?: string, candidates: readonly string[] = CHROME_CANDIDATES): string | null {
  return firstExecutable(chromePath ? [chromePath] : candidates);
}

/** The first of `paths` this process may execute, or null. */
export function firstExecutable(paths: readonly string[]): string | null {
  return (
    paths.find((path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }) ?? null
  );
}
