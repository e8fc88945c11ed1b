/**
 * Signing secrets come from the gateway (`svc.identity.signing-secret`) by token id and live only
 * in memory here, for a short while, so a busy meeting does not ask once per event and a rotated
 * secret is picked up within the cache time. Concurrent asks for one token share one request.
 */
import { call, type Bus } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';

interface Cached {
  secret: string | null;
  expiresAt: number;
}

export class SigningSecrets {
  private readonly cache = new Map<string, Cached>();
  private readonly asking = new Map<string, Promise<string | null>>();

  constructor(
    private readonly bus: Bus,
    private readonly cacheMs: number,
  ) {}

  /** The secret, or null when the gateway knows no such token. Rejects when the gateway cannot answer. */
  get(tokenId: string): Promise<string | null> {
    const cached = this.cache.get(tokenId);
    if (cached && cached.expiresAt > Date.now()) return Promise.resolve(cached.secret);
    let pending = this.asking.get(tokenId);
    if (!pending) {
      pending = this.ask(tokenId).finally(() => this.asking.delete(tokenId));
      this.asking.set(tokenId, pending);
    }
    return pending;
  }

  private async ask(tokenId: string): Promise<string | null> {
    const reply = await call(this.bus, routes.identity.signingSecret, { tokenId });
    this.cache.set(tokenId, { secret: reply.signingSecret, expiresAt: Date.now() + this.cacheMs });
    return reply.signingSecret;
  }
}
