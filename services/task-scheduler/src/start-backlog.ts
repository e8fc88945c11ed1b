/**
 * Scheduled starts whose running record is still being written. At a minute boundary with
 * thousands of tasks, runs wait until this backlog is empty: otherwise the first runs' model calls
 * and writes compete with the records of the rest of the tick, and recording the tick takes many
 * times longer. The wait is capped, so a store that never catches up delays runs, never starves them.
 */
export class StartBacklog {
  private pending = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly maxWaitMs = 10_000) {}

  track<T>(start: Promise<T>): Promise<T> {
    this.pending++;
    return start.finally(() => {
      if (--this.pending > 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    });
  }

  /** Resolves once no tracked start is pending, or after the cap. */
  drained(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(wake, this.maxWaitMs);
      function wake() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(wake);
    });
  }
}
