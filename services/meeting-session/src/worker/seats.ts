/**
 * A worker's bot seats. A seat is taken when a meeting is placed and freed as soon as its bot's
 * browser is closed: the actor's last writes (final flush, last events) do not hold it. A
 * placement that finds every seat taken but one of them being freed (its meeting is stopping)
 * waits for that seat, up to `waitMs`, instead of being refused: a start right after a stop works.
 */
export class Seats {
  private readonly taken = new Set<string>();
  private readonly freeing = new Set<string>();
  private readonly waiters: Array<{ id: string; wake: (seated: boolean) => void }> = [];

  constructor(
    readonly total: number,
    private readonly waitMs: number,
    /** Called whenever room may have appeared or gone (the worker joins or leaves the queue group). */
    private readonly onChange: () => void,
  ) {}

  get inUse(): number {
    return this.taken.size;
  }

  /** A seat is free now, or one being freed is not yet promised to a waiting placement. */
  hasRoom(): boolean {
    return this.taken.size < this.total || this.freeing.size > this.waiters.length;
  }

  /** Takes a seat for `id`: at once when one is free (synchronously, so two placements can't both
   * get the last one), after a wait when one is being freed, or not at all (false). */
  take(id: string): boolean | Promise<boolean> {
    if (this.taken.size < this.total) {
      this.taken.add(id);
      this.onChange();
      return true;
    }
    if (this.freeing.size <= this.waiters.length) return false;
    return new Promise((resolve) => {
      const waiter = {
        id,
        wake: (seated: boolean) => {
          clearTimeout(timer);
          resolve(seated);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        this.onChange();
        waiter.wake(false);
      }, this.waitMs);
      this.waiters.push(waiter);
      this.onChange();
    });
  }

  /** The meeting holding this seat is on its way out (stop, end or failure). */
  willFree(id: string): void {
    if (this.taken.has(id) && !this.freeing.has(id)) {
      this.freeing.add(id);
      this.onChange();
    }
  }

  /** The seat's browser is closed; idempotent. The first waiting placement gets the seat. */
  free(id: string): void {
    if (!this.taken.delete(id)) return;
    this.freeing.delete(id);
    const next = this.waiters.shift();
    if (next) {
      this.taken.add(next.id);
      next.wake(true);
    }
    this.onChange();
  }

  /** Refuses every waiting placement (the worker is stopping). */
  refuseWaiting(): void {
    for (const waiter of this.waiters.splice(0)) waiter.wake(false);
  }
}
