/**
 * Who gets to send next. Each meeting has at most one event in flight (its order needs that);
 * each receiver (origin: scheme, host, port) has at most `perReceiver` in flight, and the whole
 * emitter `global`. A hung receiver can therefore hold only its own slots: the others keep going.
 * Receivers with work take turns (round robin), so one busy receiver cannot starve a quiet one.
 */
export interface DispatchJob {
  /** Receiver key (the callback URL's origin). */
  readonly origin: string;
  /** Sends one event; resolves when the attempt is finished and recorded. */
  run(): Promise<void>;
}

interface Receiver {
  origin: string;
  inflight: number;
  waiting: DispatchJob[];
}

export class Dispatcher {
  private readonly receivers = new Map<string, Receiver>();
  /** Receivers with waiting work and a free slot, in turn order (a Set keeps insertion order). */
  private readonly turn = new Set<Receiver>();
  private inflight = 0;
  private stopped = false;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly perReceiver: number,
    private readonly global: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  enqueue(job: DispatchJob): void {
    if (this.stopped) return;
    const receiver = this.receiver(job.origin);
    receiver.waiting.push(job);
    if (receiver.inflight < this.perReceiver) this.turn.add(receiver);
    this.pump();
  }

  get inFlight(): number {
    return this.inflight;
  }

  /** Takes no new work; resolves when the attempts in flight have finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.turn.clear();
    if (this.inflight === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private receiver(origin: string): Receiver {
    let receiver = this.receivers.get(origin);
    if (!receiver) {
      receiver = { origin, inflight: 0, waiting: [] };
      this.receivers.set(origin, receiver);
    }
    return receiver;
  }

  private pump(): void {
    while (!this.stopped && this.inflight < this.global && this.turn.size > 0) {
      const receiver = this.turn.values().next().value as Receiver;
      this.turn.delete(receiver);
      const job = receiver.waiting.shift();
      if (!job) continue;
      this.inflight++;
      receiver.inflight++;
      // Back of the line: the next receiver with work goes first.
      if (receiver.waiting.length > 0 && receiver.inflight < this.perReceiver) this.turn.add(receiver);
      void this.execute(receiver, job);
    }
  }

  private async execute(receiver: Receiver, job: DispatchJob): Promise<void> {
    try {
      await job.run();
    } catch (err) {
      this.onError(err);
    } finally {
      this.inflight--;
      receiver.inflight--;
      if (receiver.waiting.length > 0 && !this.stopped) this.turn.add(receiver);
      else if (receiver.inflight === 0 && receiver.waiting.length === 0) this.receivers.delete(receiver.origin);
      if (this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      this.pump();
    }
  }
}
