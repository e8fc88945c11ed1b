/**
 * Counts handler promises still running, so unsubscribe/close can wait for them: a reply must be
 * sent before the connection goes away, or the requester would only see a timeout.
 */
export class InflightHandlers {
  private running = 0;
  private waiters: Array<() => void> = [];

  track(work: Promise<unknown>): void {
    this.running++;
    const done = () => {
      if (--this.running === 0 && this.waiters.length > 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      }
    };
    work.then(done, done);
  }

  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Event handler failures have nobody to report to; by default they go to stderr. */
export type HandlerErrorReporter = (err: unknown, subject: string) => void;

export const reportToStderr: HandlerErrorReporter = (err, subject) => {
  console.error(`[bus] handler for ${subject} failed:`, err);
};
