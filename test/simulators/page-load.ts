/** What the simulator records of every load of a meeting's page (the truth's pageLoads). */
import type { IncomingMessage } from 'node:http';
import type { SimAccount } from './accounts.js';
import type { SimMeeting } from './meeting.js';
import type { SimPlatform } from './types.js';

/**
 * Records a load of one of `meeting`'s pages: which page, the seed its markup was drawn from, the
 * account the browser is signed in as (null for a guest) and every account whose session it
 * carried, and the language, user agent and client hints (Sec-CH-UA) it asked with.
 */
export function recordPageLoad(
  meeting: SimMeeting,
  req: IncomingMessage,
  session: { valid: SimAccount | null; seen: string[] },
  page: { platform: SimPlatform; path: string; host?: string; hl: string | null; markupSeed: number },
): void {
  meeting.recordPageLoad({
    ...page,
    account: session.valid?.email ?? null,
    sessionsSeen: session.seen,
    acceptLanguage: req.headers['accept-language'] ?? null,
    userAgent: req.headers['user-agent'] ?? null,
    clientHints: (req.headers['sec-ch-ua'] as string | undefined) ?? null,
  });
}
