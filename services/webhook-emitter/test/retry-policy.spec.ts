import { expect } from 'chai';
import { DEFAULT_RETRY_DELAYS_MS, loadEmitterConfig } from '../src/config.js';
import { parseRetryAfter, RetryPolicy } from '../src/delivery/retry-policy.js';

const HOUR = 3_600_000;

describe('webhook emitter: retry schedule', () => {
  const defaults = loadEmitterConfig({}).retry;

  it('defaults to 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, then hourly up to 24 h, 10 s per attempt', () => {
    expect(defaults.delaysMs).to.deep.equal(DEFAULT_RETRY_DELAYS_MS);
    expect(DEFAULT_RETRY_DELAYS_MS).to.deep.equal([1000, 5000, 30_000, 120_000, 600_000, 1_800_000, HOUR]);
    expect(defaults.horizonMs).to.equal(24 * HOUR);
    expect(loadEmitterConfig({}).timeoutMs).to.equal(10_000);
    // Without jitter: walk the schedule until it gives up.
    const policy = new RetryPolicy({ ...defaults, jitter: 0 });
    const delays: number[] = [];
    let now = 0;
    for (let attempts = 1; ; attempts++) {
      const delay = policy.nextDelay(attempts, 0, now, null);
      if (delay === null) break;
      delays.push(delay);
      now += delay;
    }
    expect(delays.slice(0, 7)).to.deep.equal(DEFAULT_RETRY_DELAYS_MS);
    expect(delays.slice(7).every((d) => d === HOUR)).to.equal(true);
    expect(now).to.be.at.most(24 * HOUR);
    expect(now + HOUR).to.be.above(24 * HOUR);
  });

  it('spreads each delay by the jitter fraction', () => {
    const low = new RetryPolicy({ ...defaults, jitter: 0.2 }, () => 0).nextDelay(2, 0, 0, null);
    const high = new RetryPolicy({ ...defaults, jitter: 0.2 }, () => 0.999999).nextDelay(2, 0, 0, null);
    expect(low).to.equal(4000);
    expect(high).to.be.closeTo(6000, 1);
  });

  it('honours Retry-After (never earlier), capped, and gives up at the attempt limit', () => {
    const policy = new RetryPolicy({ ...defaults, jitter: 0, maxAttempts: 3, retryAfterMaxMs: 60_000 });
    expect(policy.nextDelay(1, 0, 0, 20_000)).to.equal(20_000);
    expect(policy.nextDelay(1, 0, 0, 10)).to.equal(1000);
    expect(policy.nextDelay(1, 0, 0, 10 * HOUR)).to.equal(60_000);
    expect(policy.nextDelay(3, 0, 0, null)).to.equal(null);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).to.equal(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).to.equal(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).to.equal(0);
    expect(parseRetryAfter('soon', now)).to.equal(null);
    expect(parseRetryAfter(undefined, now)).to.equal(null);
  });

  it('refuses a configuration where one receiver could take every slot', () => {
    expect(() => loadEmitterConfig({ WEBHOOK_RECEIVER_CONCURRENCY: '8', WEBHOOK_GLOBAL_CONCURRENCY: '8' })).to.throw(
      /WEBHOOK_GLOBAL_CONCURRENCY: must be greater than WEBHOOK_RECEIVER_CONCURRENCY/,
    );
    expect(() => loadEmitterConfig({ WEBHOOK_RETRY_DELAYS_MS: '1s,2s' })).to.throw(/WEBHOOK_RETRY_DELAYS_MS/);
  });
});
