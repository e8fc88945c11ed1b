/**
 * When to try a failed event again, or to give up (dead-letter). Exponential steps with jitter so
 * a receiver that comes back is not hit by every waiting event at the same instant; a
 * `Retry-After` on 429/503 is honoured (never earlier), capped so a receiver cannot park an
 * event beyond the horizon.
 */
import type { EmitterConfig } from '../config.js';

export class RetryPolicy {
  constructor(
    private readonly config: EmitterConfig['retry'],
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Milliseconds to wait after the `attemptsMade`-th failed attempt, or null to dead-letter.
   * `firstAttemptAt` and `now` are epoch milliseconds.
   */
  nextDelay(attemptsMade: number, firstAttemptAt: number, now: number, retryAfterMs: number | null): number | null {
    const { delaysMs, horizonMs, maxAttempts, jitter, retryAfterMaxMs } = this.config;
    if (maxAttempts > 0 && attemptsMade >= maxAttempts) return null;
    if (delaysMs.length === 0) return null;
    const base = delaysMs[Math.min(attemptsMade - 1, delaysMs.length - 1)];
    let delay = Math.round(base * (1 + jitter * (2 * this.random() - 1)));
    if (retryAfterMs !== null) delay = Math.max(delay, Math.min(retryAfterMs, retryAfterMaxMs));
    if (now + delay - firstAttemptAt > horizonMs) return null;
    return delay;
  }
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
