/**
 * The storage state an operator gives for a bot account, in what operators call its session file:
 * Playwright's `storageState` JSON, or a bare JSON array of cookies in the Chrome DevTools shape.
 * Normalized to the contracts' `storageState`, keeping only what the bot needs on its platform
 * (cookies of the platform's domains, localStorage of its https origins), so nothing else the
 * browser held is kept.
 *
 * A file is a secret: no message here ever quotes its content (JSON.parse's own message would
 * quote a snippet, so it is never passed on).
 */
import { z } from 'zod';
import {
  browserCookie,
  errors,
  storageState,
  type BrowserCookie,
  type Platform,
  type StorageState,
} from '@notetaker/contracts';

export const MAX_STORAGE_STATE_BYTES = 1024 * 1024;

/**
 * The registrable domains a platform signs its users in on. Teams also reads its sign-in from its
 * own origin's localStorage; its newest web client lives on teams.cloud.microsoft. Zoom's web client
 * reads its sign-in from cookies on zoom.us (the launch page, app.zoom.us and the usNNweb hosts).
 */
const PLATFORM_DOMAINS: Record<Platform, readonly string[]> = {
  google_meet: ['google.com'],
  teams: ['microsoft.com', 'microsoftonline.com', 'live.com', 'office.com', 'skype.com', 'cloud.microsoft'],
  zoom: ['zoom.us'],
};

export function isPlatformHost(platform: Platform, host: string): boolean {
  const name = host.toLowerCase().replace(/^\./, '');
  return PLATFORM_DOMAINS[platform].some((base) => name === base || name.endsWith(`.${base}`));
}

/** Playwright's shape as exported, before each cookie is checked (normalizeCookie). */
const playwrightExport = z.object({
  cookies: z.array(z.unknown()),
  origins: z
    .array(z.object({ origin: z.string(), localStorage: z.array(z.object({ name: z.string(), value: z.string() })) }))
    .optional(),
});

const SAME_SITE: Record<string, BrowserCookie['sameSite']> = {
  strict: 'Strict',
  lax: 'Lax',
  none: 'None',
  // Chrome extensions' export names.
  no_restriction: 'None',
};

function refuse(problem: string): never {
  throw errors.badRequest(`The session file ${problem}`, 'session');
}

/** Parses and normalizes a session file for `platform`; a 400 naming what is wrong otherwise. */
export function parseStorageStateFile(text: string, platform: Platform, nowMs = Date.now()): StorageState {
  if (Buffer.byteLength(text, 'utf8') > MAX_STORAGE_STATE_BYTES) refuse('is over 1 MB');
  if (!text.trim()) refuse('is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse('is not JSON');
  }
  let rawCookies: unknown[];
  let rawOrigins: NonNullable<z.infer<typeof playwrightExport>['origins']> = [];
  if (Array.isArray(value)) {
    rawCookies = value;
  } else {
    const state = playwrightExport.safeParse(value);
    if (!state.success) {
      refuse(
        'is neither Playwright\'s storageState ({"cookies": [...], "origins": [...]}) nor a JSON array of cookies',
      );
    }
    rawCookies = state.data.cookies;
    rawOrigins = state.data.origins ?? [];
  }

  const cookies = rawCookies.map(normalizeCookie).filter((c) => isPlatformHost(platform, c.domain));
  const where = PLATFORM_DOMAINS[platform].join(', ');
  if (cookies.length === 0) refuse(`has no cookies for ${where}: sign in to the platform in that browser first`);
  // expires is in seconds; -1 (or 0) is a session cookie, valid until the browser closes.
  const nowS = nowMs / 1000;
  const live = cookies.filter((c) => !(c.expires > 0 && c.expires < nowS));
  if (live.length === 0) refuse(`holds only expired cookies for ${where}: sign in again and export a new file`);

  const origins = rawOrigins.flatMap((entry) => {
    let url: URL;
    try {
      url = new URL(entry.origin);
    } catch {
      return [];
    }
    if (url.protocol !== 'https:' || !isPlatformHost(platform, url.hostname)) return [];
    return [{ origin: url.origin, localStorage: entry.localStorage.map(({ name, value }) => ({ name, value })) }];
  });
  return storageState.parse({ cookies: live, origins });
}

/** One cookie in any of the usual export shapes, as the contracts' cookie; a 400 naming its number and field. */
function normalizeCookie(raw: unknown, index: number): BrowserCookie {
  const which = `cookie ${index + 1}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) refuse(`has a ${which} that is not an object`);
  const c = raw as Record<string, unknown>;
  // Playwright and DevTools say `expires`, browser extensions `expirationDate` (and `session: true`).
  const expires = c.session === true ? -1 : (c.expires ?? c.expirationDate ?? -1);
  const sameSite = typeof c.sameSite === 'string' ? SAME_SITE[c.sameSite.toLowerCase()] : undefined;
  const parsed = browserCookie.safeParse({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path ?? '/',
    expires,
    httpOnly: c.httpOnly ?? false,
    secure: c.secure ?? false,
    sameSite,
  });
  if (!parsed.success) {
    // The field's name only: its value may be the secret itself.
    refuse(`has a ${which} whose "${String(parsed.error.issues[0]?.path[0] ?? 'shape')}" is missing or invalid`);
  }
  return parsed.data;
}
