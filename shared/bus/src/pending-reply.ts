import { errors, ServiceError, toWireError } from '@notetaker/contracts';
import { fromJson, toJson } from './json-payload.js';

/**
 * One outstanding in-process request. The first answer wins (as with NATS, where the requester
 * keeps only the first reply); later answers and answers after the timeout are dropped.
 */
export class PendingReply {
  private settled = false;
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly subject: string,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (err: unknown) => void,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(this.expire, timeoutMs);
  }

  succeed(value: unknown): void {
    if (this.settled) return;
    let copy: unknown;
    try {
      copy = fromJson(toJson(value));
    } catch {
      // A reply that cannot be serialized would fail on the network too.
      this.fail(errors.internal());
      return;
    }
    this.finish();
    this.resolve(copy);
  }

  /** Rebuilds the error from its wire form, so nothing but code/message/status/retryable crosses. */
  fail(err: unknown): void {
    if (this.settled) return;
    this.finish();
    this.reject(ServiceError.fromWire(toWireError(err)));
  }

  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }

  private readonly expire = (): void => {
    if (this.settled) return;
    this.settled = true;
    this.reject(errors.busTimeout(this.subject));
  };
}
