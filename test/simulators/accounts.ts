/**
 * Signed-in accounts of the simulated platforms, and the sessions that prove them. The real ones
 * are read the same way: Google Meet from cookies on `.google.com` (SID, __Secure-1PSID, ...),
 * Teams from its `authtoken` cookie on teams.microsoft.com together with the token the web app
 * keeps in localStorage of its own origin, Zoom from its session cookies on `.zoom.us` (_zm_ssid,
 * zm_aid). A test makes an account, hands its `storageState` to
 * the service as an operator would, and may later sign it out (the platform stops accepting the
 * session: the next page load goes to the sign-in page).
 */
import { randomBytes } from 'node:crypto';
import type { SimPlatform } from './types.js';

export interface SimAccount {
  platform: SimPlatform;
  name: string;
  email: string;
  /** Playwright's storageState of a browser signed in to this account. */
  storageState: StorageState;
  /** The secret values of the session: a page that presents one of them presents this account. */
  tokens: string[];
}

export interface StorageState {
  cookies: Array<{
    name: string;
    value: string;
    domain: string;
    path: string;
    expires: number;
    httpOnly: boolean;
    secure: boolean;
    sameSite: 'Strict' | 'Lax' | 'None';
  }>;
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

/** The localStorage key the Teams web app keeps its token under (ts.<user object id>.auth.skype.token). */
export const TEAMS_TOKEN_KEY = /^ts\.[0-9a-f-]+\.auth\.skype\.token$/;

const token = () => randomBytes(18).toString('base64url');
/** The cookies a signed-in Zoom web client presents (the session and the account id). */
const ZOOM_SESSION_COOKIES = ['_zm_ssid', 'zm_aid'];
const YEAR_S = 365 * 24 * 3600;

export class AccountBook {
  private readonly byToken = new Map<string, SimAccount>();
  private readonly signedOut = new Set<SimAccount>();

  create(platform: SimPlatform, name: string, email: string): SimAccount {
    const expires = Math.floor(Date.now() / 1000) + YEAR_S;
    const cookie = (cookieName: string, domain: string, value = token()) => ({
      name: cookieName,
      value,
      domain,
      path: '/',
      expires,
      httpOnly: true,
      secure: true,
      sameSite: 'None' as const,
    });
    let storageState: StorageState;
    if (platform === 'google_meet') {
      storageState = {
        cookies: ['SID', 'HSID', 'SSID', '__Secure-1PSID'].map((n) => cookie(n, '.google.com')),
        origins: [],
      };
    } else if (platform === 'zoom') {
      storageState = { cookies: ZOOM_SESSION_COOKIES.map((n) => cookie(n, '.zoom.us')), origins: [] };
    } else {
      const oid = `${randomBytes(4).toString('hex')}-0000-4000-8000-${randomBytes(6).toString('hex')}`;
      storageState = {
        cookies: [
          cookie('authtoken', 'teams.microsoft.com'),
          cookie('ESTSAUTHPERSISTENT', '.login.microsoftonline.com'),
        ],
        origins: [
          {
            origin: 'https://teams.microsoft.com',
            localStorage: [{ name: `ts.${oid}.auth.skype.token`, value: token() }],
          },
        ],
      };
    }
    const tokens = [
      ...storageState.cookies.map((c) => c.value),
      ...storageState.origins.flatMap((o) => o.localStorage.map((i) => i.value)),
    ];
    const account: SimAccount = { platform, name, email, storageState, tokens };
    for (const value of tokens) this.byToken.set(value, account);
    return account;
  }

  /** The platform no longer accepts the account's session (expired, revoked, password changed). */
  signOut(email: string): void {
    for (const account of this.byToken.values()) if (account.email === email) this.signedOut.add(account);
  }

  /**
   * What a page load presents: `valid` the account its session proves (every required part, none
   * signed out), `stale` when it presents a session the platform no longer accepts or only part of
   * one, and every account whose token it carries (the isolation tests read `seen`).
   */
  check(platform: SimPlatform, presented: string[]): { valid: SimAccount | null; stale: boolean; seen: string[] } {
    const found = presented.map((value) => this.byToken.get(value)).filter((a): a is SimAccount => !!a);
    const seen = [...new Set(found.map((a) => a.email))];
    const mine = found.filter((a) => a.platform === platform);
    if (!mine.length) return { valid: null, stale: false, seen };
    const account = mine[0];
    const required =
      platform === 'google_meet'
        ? account.storageState.cookies
            .filter((c) => c.name === 'SID' || c.name === '__Secure-1PSID')
            .map((c) => c.value)
        : platform === 'zoom'
          ? account.storageState.cookies.map((c) => c.value)
          : [
              account.storageState.cookies.find((c) => c.name === 'authtoken')!.value,
              account.storageState.origins[0].localStorage[0].value,
            ];
    const complete = required.every((value) => presented.includes(value));
    if (!complete || this.signedOut.has(account)) return { valid: null, stale: true, seen };
    return { valid: account, stale: false, seen };
  }
}

/** The values of a Cookie header. */
export function cookieValues(header: string | undefined): Map<string, string> {
  const values = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) values.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return values;
}
