/**
 * Browser sessions, kept in the gateway's store so any gateway instance can answer and a restart
 * signs nobody out. The cookie holds 256 random bits; the store holds only their SHA-256, so a
 * copy of the database cannot be replayed as a cookie. A session ends after an idle period and,
 * whatever the activity, after a maximum lifetime.
 *
 * A session can carry one sealed "flash": what must be shown exactly once on the next page (a new
 * token's key and signing secret), encrypted with the same key-encryption key as signing secrets.
 */
import crypto from 'node:crypto';
import type { Collection, Store } from '@notetaker/store';
import type { SealedSecret, SecretBox } from '../identity/secrets.js';
import type { WebConfig } from './config.js';

export interface SignInRecord {
  _id: string;
  accountId: string;
  csrfToken: string;
  createdAt: number;
  /** Idle expiry (epoch ms), pushed forward as the session is used. */
  expiresAt: number;
  /** Absolute end (epoch ms). */
  endsAt: number;
  flash?: SealedSecret | null;
  [key: string]: unknown;
}

export type SignInLookup =
  | { state: 'active'; session: SignInRecord }
  /** A cookie was presented but names no live session: expired, or signed out elsewhere. */
  | { state: 'expired' }
  | { state: 'none' };

/** Renewing on every request would write on every page view; once a minute keeps the idle clock. */
const RENEW_RESOLUTION_MS = 60_000;

export function randomToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

function digest(cookieValue: string): string {
  return crypto.createHash('sha256').update(cookieValue, 'utf8').digest('hex');
}

export class SignIns {
  private readonly sessions: Collection<SignInRecord>;

  constructor(
    store: Store,
    private readonly box: SecretBox,
    private readonly config: WebConfig,
    /** Told the id of a session signed out or found expired, so its open live views end (grants.ts). */
    private readonly onEnded: (sessionId: string) => void = () => {},
  ) {
    this.sessions = store.collection<SignInRecord>('web_sessions');
  }

  async init(): Promise<void> {
    await this.sessions.createIndex({ expiresAt: 1 });
    await this.sessions.createIndex({ accountId: 1 });
  }

  /** A new session; returns the cookie value. Expired sessions are swept here, not by a timer. */
  async create(accountId: string): Promise<{ cookie: string; session: SignInRecord }> {
    const now = Date.now();
    await this.sessions.deleteMany({ $or: [{ expiresAt: { $lt: now } }, { endsAt: { $lt: now } }] });
    const cookie = randomToken();
    const endsAt = now + this.config.sessionMaxMs;
    const session: SignInRecord = {
      _id: digest(cookie),
      accountId,
      csrfToken: randomToken(),
      createdAt: now,
      expiresAt: Math.min(now + this.config.sessionIdleMs, endsAt),
      endsAt,
      flash: null,
    };
    await this.sessions.insertOne(session);
    return { cookie, session };
  }

  async lookup(cookie: string | null): Promise<SignInLookup> {
    if (!cookie) return { state: 'none' };
    const id = digest(cookie);
    const session = await this.sessions.findOne({ _id: id });
    const now = Date.now();
    if (!session) return { state: 'expired' };
    if (session.expiresAt <= now || session.endsAt <= now) {
      await this.sessions.deleteOne({ _id: id });
      this.onEnded(id);
      return { state: 'expired' };
    }
    const renewed = Math.min(now + this.config.sessionIdleMs, session.endsAt);
    if (renewed - session.expiresAt >= RENEW_RESOLUTION_MS || this.config.sessionIdleMs < RENEW_RESOLUTION_MS * 2) {
      await this.sessions.updateOne({ _id: id }, { $set: { expiresAt: renewed } });
      session.expiresAt = renewed;
    }
    return { state: 'active', session };
  }

  async destroy(cookie: string | null): Promise<void> {
    if (!cookie) return;
    const id = digest(cookie);
    await this.sessions.deleteOne({ _id: id });
    this.onEnded(id);
  }

  /** Whether a session (by its stored id) is still signed in and not expired; renews nothing. */
  async isActive(sessionId: string): Promise<boolean> {
    const session = await this.sessions.findOne({ _id: sessionId });
    const now = Date.now();
    return !!session && session.expiresAt > now && session.endsAt > now;
  }

  async setFlash(session: SignInRecord, value: unknown): Promise<void> {
    const flash = this.box.seal(JSON.stringify(value));
    await this.sessions.updateOne({ _id: session._id }, { $set: { flash } });
  }

  /** The flash, at most once: of two concurrent readers only the one whose clear matched gets it. */
  async takeFlash(session: SignInRecord): Promise<unknown | null> {
    const current = await this.sessions.findOne({ _id: session._id });
    const flash = current?.flash;
    if (!flash) return null;
    const cleared = await this.sessions.updateOne(
      { _id: session._id, 'flash.iv': flash.iv },
      { $set: { flash: null } },
    );
    if (cleared.modifiedCount !== 1) return null;
    return JSON.parse(this.box.open(flash));
  }
}
