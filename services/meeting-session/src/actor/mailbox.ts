/**
 * An actor's mailbox: messages are handled one at a time, in arrival order. A handler that throws
 * is reported and the next message is handled; the mailbox never stops on its own.
 *
 * A queue drained in one microtask rather than a promise chain: a busy meeting posts a message per
 * caption update, and three promises per message were a visible share of the CPU per event. Only
 * a handler that returns a promise (storing a segment, leaving) makes the next one wait.
 */
type Handler = () => void | Promise<void>;

export class Mailbox {
  private readonly queue: Handler[] = [];
  /** Index of the next message to handle; the ones before it are done. */
  private head = 0;
  private draining = false;

  constructor(private readonly onError: (err: unknown) => void) {}

  post(handler: Handler): void {
    this.queue.push(handler);
    if (this.draining) return;
    this.draining = true;
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    while (this.head < this.queue.length) {
      const handler = this.queue[this.head++];
      try {
        const result = handler();
        if (result) await result;
      } catch (err) {
        this.onError(err);
      }
      // Done messages are dropped in bulk: shifting a long queue one at a time is quadratic.
      if (this.head >= 1024) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
    }
    this.queue.length = 0;
    this.head = 0;
    this.draining = false;
  }
}
