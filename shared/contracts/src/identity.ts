/** Identity messages: the gateway owns accounts and API tokens; others ask it over the bus. */
import { z } from 'zod';
import { platform } from './rest/meetings.js';

export const CAPABILITIES = ['knowledge:write'] as const;
export const capability = z.enum(CAPABILITIES);
export type Capability = z.infer<typeof capability>;

/**
 * Broadcast on broadcast.identity.grant-ended to every gateway when what a stream was opened on
 * ends: an API key revoked, or a web session signed out. Each gateway ends that grant's open
 * streams (MCP subscriptions and 2025-era sessions; the web live view). It names the grant only:
 * a token id, or a web session's id as stored (the SHA-256 of its cookie), never a key or a cookie.
 */
export const grantEndedNotice = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('token'), tokenId: z.string() }),
  z.object({ kind: z.literal('web_session'), sessionId: z.string().regex(/^[0-9a-f]{64}$/) }),
]);
export type Grant = z.infer<typeof grantEndedNotice>;

export const signingSecretRequest = z.object({ tokenId: z.string() });
export const signingSecretReply = z.object({ signingSecret: z.string().nullable() });

// ---- bot accounts: dedicated platform accounts the bots join signed in with (the gateway keeps them)

export const BOT_ACCOUNT_STATUSES = ['active', 'signed_out'] as const;
export const botAccountStatus = z.enum(BOT_ACCOUNT_STATUSES);
export type BotAccountStatus = z.infer<typeof botAccountStatus>;

/** One cookie of a browser signed in to a bot account, in the Chrome DevTools shape (what puppeteer sets). */
export const browserCookie = z.object({
  name: z.string().min(1).max(4096),
  value: z.string().max(8192),
  domain: z.string().min(1).max(255),
  path: z.string().max(1024).default('/'),
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None']).optional(),
});
export type BrowserCookie = z.infer<typeof browserCookie>;

/**
 * A bot account's storage state: the cookies, and the localStorage per origin, of a browser signed
 * in to it (Playwright's storageState shape). It signs in as the account: a secret. Operators call
 * the file it comes in the account's "session file".
 */
export const storageState = z.object({
  cookies: z.array(browserCookie),
  origins: z.array(
    z.object({
      origin: z.string(),
      localStorage: z.array(z.object({ name: z.string(), value: z.string() })),
    }),
  ),
});
export type StorageState = z.infer<typeof storageState>;

/** What may be shown about a bot account: never its storage state. */
export const botAccountInfo = z.object({
  id: z.string(),
  platform,
  name: z.string(),
  status: botAccountStatus,
  maxMeetings: z.number().int().min(1),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  /** The signed-in identity the platform showed on its pre-join screen, once seen. */
  identity: z.string().nullable(),
});
export type BotAccountInfo = z.infer<typeof botAccountInfo>;

/** svc.identity.bot-accounts: the accounts of a platform, without their storage states. */
export const botAccountsRequest = z.object({ platform });
export const botAccountsReply = z.object({ accounts: z.array(botAccountInfo) });
/**
 * svc.identity.bot-account-session: one account's storage state, decrypted, for meeting-session
 * only; 404 when removed. The subject and the reply's `session` keep their first names, so that
 * services of two versions still understand each other.
 */
export const botAccountStorageStateRequest = z.object({ accountId: z.string() });
export const botAccountStorageStateReply = z.object({ session: storageState });
/** svc.identity.bot-account-report: what a bot saw of an account (signed out, the identity shown, used now). */
export const botAccountReport = z.object({
  accountId: z.string(),
  signedOut: z.boolean().optional(),
  identity: z.string().max(200).optional(),
  usedAt: z.string().optional(),
});
export const botAccountReportReply = z.object({});
/** svc.meetings.account-usage: how many live meetings each bot account is in now. */
export const accountUsageRequest = z.object({});
export const accountUsageReply = z.object({ inUse: z.record(z.string(), z.number().int().min(0)) });
