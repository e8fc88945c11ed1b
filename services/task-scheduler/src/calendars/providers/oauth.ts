/**
 * Access tokens from refresh tokens, through openid-client's refresh grant against a token
 * endpoint that is a setting (GOOGLE_OAUTH_TOKEN_URL, MICROSOFT_LOGIN_URL/<tenant>/oauth2/v2.0/token),
 * kept in memory per calendar until shortly before they expire. A refused grant (`invalid_grant`:
 * revoked, expired, the password changed) is the calendar's `disconnected`; a refresh token the
 * provider rotates is handed back to be sealed in place of the old one.
 */
import * as oidc from 'openid-client';
import { CalendarFault } from './errors.js';

export interface OAuthClient {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** Microsoft asks for the scopes again on refresh. */
  scope?: string;
}

interface Cached {
  accessToken: string;
  expiresAt: number;
}

/** A token is renewed this long before the provider says it expires. */
const EARLY_MS = 60_000;

export class AccessTokens {
  private readonly cache = new Map<string, Cached>();

  constructor(
    /** The provider's name in sentences: `Google`, `Microsoft`. */
    private readonly provider: string,
    private readonly onRotated: (calendarId: string, refreshToken: string) => Promise<void>,
  ) {}

  async get(calendarId: string, client: OAuthClient, fresh = false): Promise<string> {
    const cached = this.cache.get(calendarId);
    if (!fresh && cached && cached.expiresAt > Date.now()) return cached.accessToken;
    const server = new URL(client.tokenUrl);
    const config = new oidc.Configuration(
      { issuer: server.origin, token_endpoint: client.tokenUrl },
      client.clientId,
      client.clientSecret,
    );
    config.timeout = 30;
    let tokens;
    try {
      tokens = await oidc.refreshTokenGrant(config, client.refreshToken, client.scope ? { scope: client.scope } : {});
    } catch (err) {
      throw this.fault(err);
    }
    const expiresIn = tokens.expiresIn() ?? 3600;
    this.cache.set(calendarId, {
      accessToken: tokens.access_token,
      expiresAt: Date.now() + Math.max(0, expiresIn * 1000 - EARLY_MS),
    });
    if (tokens.refresh_token && tokens.refresh_token !== client.refreshToken)
      await this.onRotated(calendarId, tokens.refresh_token);
    return tokens.access_token;
  }

  forget(calendarId: string): void {
    this.cache.delete(calendarId);
  }

  private fault(err: unknown): CalendarFault {
    const who = `${this.provider}'s token endpoint`;
    const e = err as { error?: string; status?: number; cause?: unknown; code?: string };
    if (e.error === 'invalid_grant')
      return new CalendarFault(
        'disconnected',
        `${this.provider} refused the refresh token (invalid_grant): connect the calendar again`,
      );
    const status = e.status ?? (e.cause as Response | undefined)?.status;
    if (status === 429 || (status !== undefined && status >= 500)) {
      const header = (e.cause as Response | undefined)?.headers?.get?.('retry-after') ?? null;
      const seconds = header !== null ? Number(header) : NaN;
      return new CalendarFault(
        'error',
        `${who} answered HTTP ${status}; retrying later`,
        Number.isFinite(seconds) ? seconds * 1000 : null,
      );
    }
    if (e.error) return new CalendarFault('error', `${who} refused the client (${String(e.error).slice(0, 60)})`);
    if (status !== undefined) return new CalendarFault('error', `${who} answered HTTP ${status}`);
    return new CalendarFault('error', `${who} could not be reached`);
  }
}
