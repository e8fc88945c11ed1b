/**
 * An actor's mailbox: messages are handled one at a time, in arrival order. A handler that throws
 * is reported and the next message is handled; the mailbox never stops on its own.
 */
export class Mailbox {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(private readonly onError: (err: unknown) => void) {}

  post(handler: () => void | Promise<void>): void {
    this.pending++;
    this.tail = this.tail
      .then(handler)
      .catch(this.onError)
      .finally(() => {
        this.pending--;
      });
  }

  /** Resolves once every message posted so far has been handled. */
  idle(): Promise<void> {
    return this.tail;
  }

  get size(): number {
    return this.pending;
  }
}
