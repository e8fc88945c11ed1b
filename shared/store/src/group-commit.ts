/**
 * Group commit: items handed in while a write is under way wait and go together in the next one,
 * so the number of store writes follows the store's speed, not the event rate. Each `add`
 * resolves once its item is written (or rejects with the write's error). At low rates a batch is
 * one item and costs one write; under load one write carries hundreds. `delayMs` lets a writer
 * whose callers do not wait (records of successful deliveries) gather a little longer.
 */
interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/** `write` stores one batch and returns what every item of it resolves with (the batch id). */
export class GroupCommit<T, R = void> {
  private queue: Array<Waiting<T, R>> = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly write: (items: T[]) => Promise<R>,
    private readonly options: { maxBatch?: number; delayMs?: number } = {},
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.running ??= this.drainSoon();
    });
  }

  /** Resolves when everything added so far is written (shutdown). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drainSoon(): Promise<void> {
    // Whatever else arrives in this turn of the event loop (one socket read can carry many bus
    // messages), or within delayMs, joins the first batch.
    const delay = this.options.delayMs ?? 0;
    await new Promise<void>((resolve) => (delay > 0 ? setTimeout(resolve, delay) : setImmediate(resolve)));
    const max = this.options.maxBatch ?? 1000;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, max);
      try {
        const result = await this.write(batch.map((w) => w.item));
        for (const w of batch) w.resolve(result);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.running = null;
  }
}
