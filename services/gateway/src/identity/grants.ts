/**
 * Streams end with their grant. An MCP subscription, a 2025-era MCP session and the web live view
 * are let in once, by an API key or a web session, and then stay open for hours: checking the
 * grant per request would never cut them. So whoever ends a grant (a token revoked through the CLI's
 * admin socket or the tokens page, a web sign-out) calls `ended`: this gateway's streams on that
 * grant end at once, and `broadcast.identity.grant-ended` tells every other gateway to do the same.
 *
 * A broadcast can be missed (a gateway reconnecting to the bus, a CLI writing to MongoDB with no
 * gateway in between, a session simply expiring), so every `recheckMs` each grant with a stream
 * open is checked again against the store, and ended when it no longer holds.
 */
import { announce, listen, type Bus, type Subscription } from '@notetaker/bus';
import { broadcasts, type Grant } from '@notetaker/contracts';
import { envMs, parseEnv } from '@notetaker/config';
import type { Logger } from '@notetaker/observability';
import { z } from 'zod';

export const grantEnvSchema = z.object({
  /** How often the grants of open streams are checked again, for a revocation whose broadcast was missed. */
  STREAM_GRANT_CHECK_MS: envMs(15_000),
});

/** Whether a grant still holds (the token not revoked, the web session not ended or expired). */
export type GrantChecks = { [K in Grant['kind']]: (id: string) => Promise<boolean> };

const keyOf = (grant: Grant) => (grant.kind === 'token' ? `token:${grant.tokenId}` : `web_session:${grant.sessionId}`);

export class GrantWatch {
  /** The ends of the open streams, by grant; a grant is here only while one is open. */
  private readonly open = new Map<string, { grant: Grant; ends: Set<() => void> }>();
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  /** A round still under way (a slow store) is not started again on top of itself. */
  private checking = false;
  private readonly recheckMs: number;

  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    env: NodeJS.ProcessEnv,
  ) {
    this.recheckMs = parseEnv(grantEnvSchema, env).STREAM_GRANT_CHECK_MS;
  }

  /** Hears the other gateways' broadcasts and starts the periodic check. */
  start(checks: GrantChecks): void {
    this.subscription = listen(this.bus, broadcasts.grantEnded, (grant) => this.endLocally(grant));
    this.timer = setInterval(() => void this.recheck(checks), this.recheckMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.subscription?.unsubscribe();
  }

  /** Calls `end` when `grant` ends; the returned function forgets it (for a stream that closed first). */
  watch(grant: Grant, end: () => void): () => void {
    const key = keyOf(grant);
    let entry = this.open.get(key);
    if (!entry) this.open.set(key, (entry = { grant, ends: new Set() }));
    const ends = entry.ends;
    ends.add(end);
    return () => {
      ends.delete(end);
      if (ends.size === 0 && this.open.get(key)?.ends === ends) this.open.delete(key);
    };
  }

  /** A grant ended here: its streams on this gateway end now, and every other gateway is told. */
  ended(grant: Grant): void {
    this.endLocally(grant);
    announce(this.bus, broadcasts.grantEnded, grant);
  }

  private endLocally(grant: Grant): void {
    const entry = this.open.get(keyOf(grant));
    if (!entry) return;
    this.open.delete(keyOf(grant));
    for (const end of entry.ends) {
      try {
        end();
      } catch (err) {
        this.logger.warn({ err, grant: grant.kind }, 'ending a stream of an ended grant failed');
      }
    }
  }

  private async recheck(checks: GrantChecks): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await this.recheckEach(checks);
    } finally {
      this.checking = false;
    }
  }

  private async recheckEach(checks: GrantChecks): Promise<void> {
    for (const { grant } of [...this.open.values()]) {
      try {
        const holds = grant.kind === 'token' ? checks.token(grant.tokenId) : checks.web_session(grant.sessionId);
        if (!(await holds)) this.endLocally(grant);
      } catch (err) {
        // The store not answering is no reason to cut streams: the next round checks again.
        this.logger.warn({ err, grant: grant.kind }, 'checking the grant of an open stream failed');
      }
    }
  }
}
