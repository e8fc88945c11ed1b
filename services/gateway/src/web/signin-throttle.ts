/**
 * Lock-out after repeated failed sign-ins. Attempts are counted before the password is checked
 * (an atomic increment), so a burst of parallel guesses cannot slip past the limit while the
 * first ones are still hashing. Two counters: one per (email, address) pair, which locks out the
 * guesser without locking the owner out from elsewhere, and one per address with a larger limit,
 * against one address trying many emails. Kept in the store, so every gateway instance agrees.
 */
import type { Collection, Store } from '@notetaker/store';
import type { WebConfig } from './config.js';

interface AttemptRecord {
  _id: string;
  count: number;
  windowStart: number;
  lockedUntil: number;
  [key: string]: unknown;
}

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

/** An address may fail this many times the per-email limit, over all emails. */
const ADDRESS_FACTOR = 4;

export class SigninThrottle {
  private readonly attempts: Collection<AttemptRecord>;

  constructor(
    store: Store,
    private readonly config: WebConfig,
  ) {
    this.attempts = store.collection<AttemptRecord>('web_signin_attempts');
  }

  private keys(email: string, address: string): Array<{ id: string; limit: number }> {
    return [
      { id: `pair:${email.trim().toLowerCase()}|${address}`, limit: this.config.maxSigninFailures },
      { id: `addr:${address}`, limit: this.config.maxSigninFailures * ADDRESS_FACTOR },
    ];
  }

  /** Counts one attempt; refuses it when a counter is locked or this attempt goes over a limit. */
  async attempt(email: string, address: string): Promise<AttemptVerdict> {
    const now = Date.now();
    let retryAfterMs = 0;
    for (const { id, limit } of this.keys(email, address)) {
      const existing = await this.attempts.findOne({ _id: id });
      if (existing && existing.lockedUntil > now) {
        retryAfterMs = Math.max(retryAfterMs, existing.lockedUntil - now);
        continue;
      }
      if (!existing || existing.windowStart + this.config.lockoutMs <= now) {
        await this.attempts.updateOne(
          { _id: id },
          { $set: { count: 0, windowStart: now, lockedUntil: 0 } },
          { upsert: true },
        );
      }
      const counted = await this.attempts.findOneAndUpdate({ _id: id }, { $inc: { count: 1 } });
      if (counted && counted.count > limit) {
        const lockedUntil = now + this.config.lockoutMs;
        await this.attempts.updateOne({ _id: id }, { $set: { lockedUntil, count: 0, windowStart: now } });
        retryAfterMs = Math.max(retryAfterMs, this.config.lockoutMs);
      }
    }
    return retryAfterMs > 0 ? { allowed: false, retryAfterMs } : { allowed: true };
  }

  /** A success forgives the pair's failures and takes itself back off the address's count. */
  async succeeded(email: string, address: string): Promise<void> {
    const [pair, addr] = this.keys(email, address);
    await this.attempts.deleteOne({ _id: pair.id });
    await this.attempts.updateOne({ _id: addr.id, count: { $gt: 0 } }, { $inc: { count: -1 } });
  }
}
