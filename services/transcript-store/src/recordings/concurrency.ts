/**
 * How the adapters pace their work: one job at a time per recording (KeyedSerial), a bounded
 * number of requests at once (mapLimit), results in order with some fetched ahead (inOrder).
 */

/**
 * Runs the jobs given for one key one after another, in the order given, while jobs for other
 * keys run alongside. An append must see the size the previous append left, and complete must
 * not run in the middle of an append; requests for one recording may nonetheless arrive together
 * (a retry beside the original, the bus delivering two chunks at once).
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(job);
    // The chain goes on whether this job fails or not; its caller sees the failure.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves once every job queued so far has settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all(this.tails.values());
  }
}

/** Runs `fn` on every item, at most `limit` at a time; answers the results in the items' order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (err) {
        failed = true; // the others stop taking items: one failure fails the whole
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The jobs' results in order, with up to `window` of them running ahead of the consumer. */
export async function* inOrder<T>(jobs: Array<() => Promise<T>>, window: number): AsyncGenerator<T> {
  const running: Array<Promise<T>> = [];
  let next = 0;
  const launch = () => {
    const job = jobs[next++]();
    // Handled when awaited below; one left behind by an early return must not crash the process.
    job.catch(() => {});
    running.push(job);
  };
  while (next < jobs.length && running.length < window) launch();
  while (running.length > 0) {
    const value = await running.shift()!;
    if (next < jobs.length) launch();
    yield value;
  }
}
