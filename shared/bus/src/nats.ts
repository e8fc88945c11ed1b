import {
  connect,
  createInbox,
  ErrorCode,
  type Msg,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from 'nats';
import { errors } from '@notetaker/contracts';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type Bus,
  type EventHandler,
  type MessageContext,
  type RequestHandler,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
} from './port.js';
import { decodePayload, encodeFailure, encodePayload, encodeSuccess, openReply } from './nats-wire.js';
import { InflightHandlers, isPromiseLike, reportToStderr, type HandlerErrorReporter } from './inflight.js';

export interface NatsBusOptions {
  servers: string | string[];
  /** Connection name shown by the NATS server's monitoring; use the service name. */
  name: string;
  /** Pause between reconnect attempts; reconnects never give up. Default 250 ms. */
  reconnectTimeWaitMs?: number;
  /** close() stops waiting for the drain after this long (a dead server would block it forever). */
  closeTimeoutMs?: number;
  onHandlerError?: HandlerErrorReporter;
}

interface AwaitedReply {
  readonly subject: string;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  timer: ReturnType<typeof setTimeout> | null;
}

interface LiveSub {
  readonly sub: NatsSubscription;
  readonly inflight: InflightHandlers;
  draining?: Promise<void>;
}

/**
 * The bus on a NATS connection. Handlers run concurrently: each message is dispatched by callback.
 *
 * What a turn of the event loop sends (replies, publishes, requests) goes out together, in the
 * order it was sent, once the turn is over (setImmediate): nats.js writes to its socket once per
 * microtask checkpoint, and handlers finish in many of those (each await is one), so a registry
 * answering a socket read of fifty requests made about as many socket writes, each a system call
 * that also wakes the server. Nothing waits longer than the turn it was sent in.
 */
export class NatsBus implements Bus {
  private readonly subs = new Set<LiveSub>();
  private outgoing: Array<() => void> = [];
  /** Requests waiting for their reply, by the token ending their reply subject. */
  private readonly awaiting = new Map<string, AwaitedReply>();
  private readonly inbox = `${createInbox()}.`;
  private replies: NatsSubscription | null = null;
  private nextToken = 0;
  private sendScheduled = false;
  private readonly onHandlerError: HandlerErrorReporter;
  private readonly closeTimeoutMs: number;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    options: Pick<NatsBusOptions, 'onHandlerError' | 'closeTimeoutMs'> = {},
  ) {
    this.onHandlerError = options.onHandlerError ?? reportToStderr;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 5000;
  }

  request<T = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<T> {
    try {
      this.assertOpen();
      const timeoutMs = options?.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const payload = encodePayload(data);
      return new Promise<T>((resolve, reject) => {
        const waiting: AwaitedReply = { subject, resolve: resolve as (value: unknown) => void, reject, timer: null };
        this.send(
          () => this.ask(waiting, payload, timeoutMs),
          (err) => reject(requestError(err, subject)),
        );
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Publishes a request with a reply subject of this connection's own inbox, where one wildcard
   * subscription hears every reply. nats.js's request() does the same, but builds a NatsError
   * (a stack trace) for every request it settles, answered or not: at a thousand heartbeats a
   * second that was a few percent of a worker host's and the registry's time.
   */
  private ask(waiting: AwaitedReply, payload: Uint8Array, timeoutMs: number): void {
    this.replies ??= this.nc.subscribe(`${this.inbox}*`, { callback: (err, msg) => this.settle(err, msg) });
    const token = (this.nextToken++).toString(36);
    this.awaiting.set(token, waiting);
    waiting.timer = setTimeout(() => {
      this.awaiting.delete(token);
      waiting.reject(errors.busTimeout(waiting.subject));
    }, timeoutMs);
    try {
      this.nc.publish(waiting.subject, payload, { reply: `${this.inbox}${token}` });
    } catch (err) {
      this.awaiting.delete(token);
      clearTimeout(waiting.timer);
      throw err;
    }
  }

  private settle(err: Error | null, msg: Msg): void {
    if (err) return; // the inbox's subscription failed: its requests time out
    const token = msg.subject.slice(this.inbox.length);
    const waiting = this.awaiting.get(token);
    if (!waiting) return; // answered after its timeout (or twice)
    this.awaiting.delete(token);
    if (waiting.timer) clearTimeout(waiting.timer);
    // The server's own answer when nobody subscribes: status 503 and no payload.
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      waiting.reject(errors.noResponders(waiting.subject));
      return;
    }
    try {
      waiting.resolve(openReply(msg.data));
    } catch (failure) {
      waiting.reject(failure); // the server's ServiceError, rebuilt
    }
  }

  serve(subject: string, handler: RequestHandler, options?: SubscribeOptions): Subscription {
    return this.addSub(subject, options, (msg, inflight) => this.answer(msg, handler, inflight));
  }

  publish(subject: string, data: unknown): void {
    this.assertOpen();
    const payload = encodePayload(data);
    this.send(
      () => this.nc.publish(subject, payload),
      (err) => this.onHandlerError(err, subject),
    );
  }

  subscribe(subject: string, handler: EventHandler, options?: SubscribeOptions): Subscription {
    return this.addSub(subject, options, (msg, inflight) => this.deliver(msg, handler, inflight));
  }

  flush(): Promise<void> {
    this.sendNow();
    return this.nc.flush();
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private addSub(
    subject: string,
    options: SubscribeOptions | undefined,
    onMessage: (msg: Msg, inflight: InflightHandlers) => void,
  ): Subscription {
    this.assertOpen();
    const inflight = new InflightHandlers();
    const sub = this.nc.subscribe(subject, {
      queue: options?.queue,
      callback: (err, msg) => {
        if (err) this.onHandlerError(err, subject);
        else onMessage(msg, inflight);
      },
    });
    const live: LiveSub = { sub, inflight };
    this.subs.add(live);
    return { unsubscribe: () => this.drainSub(live) };
  }

  private answer(msg: Msg, handler: RequestHandler, inflight: InflightHandlers): void {
    let data: unknown;
    try {
      data = decodePayload(msg.data);
    } catch {
      this.reply(msg, encodeFailure(errors.badRequest('Request payload is not valid JSON')));
      return;
    }
    let result: unknown;
    try {
      result = handler(data, new LazyContext(msg));
    } catch (err) {
      this.replyFailure(msg, err);
      return;
    }
    if (isPromiseLike(result)) {
      inflight.track(
        Promise.resolve(result).then(
          (value) => this.reply(msg, encodeSuccess(value)),
          (err: unknown) => this.replyFailure(msg, err),
        ),
      );
    } else {
      this.reply(msg, encodeSuccess(result));
    }
  }

  private deliver(msg: Msg, handler: EventHandler, inflight: InflightHandlers): void {
    try {
      const result = handler(decodePayload(msg.data), new LazyContext(msg));
      if (isPromiseLike(result)) {
        inflight.track(Promise.resolve(result).catch((err: unknown) => this.onHandlerError(err, msg.subject)));
      }
    } catch (err) {
      this.onHandlerError(err, msg.subject);
    }
  }

  private replyFailure(msg: Msg, err: unknown): void {
    // A published (not requested) message has nobody to receive the error.
    if (msg.reply) this.reply(msg, encodeFailure(err));
    else this.onHandlerError(err, msg.subject);
  }

  private reply(msg: Msg, body: Uint8Array): void {
    if (!msg.reply) return;
    this.send(
      () => msg.respond(body),
      (err) => this.onHandlerError(err, msg.subject),
    );
  }

  /** Queues `op` for the end of this turn (see the class); `failed` hears what it throws then. */
  private send(op: () => void, failed: (err: unknown) => void): void {
    this.outgoing.push(() => {
      try {
        op();
      } catch (err) {
        failed(err);
      }
    });
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(this.sendNow);
  }

  /** Hands nats.js everything queued, in order, in one go: it writes it to the socket as one. */
  private readonly sendNow = (): void => {
    this.sendScheduled = false;
    const ops = this.outgoing;
    this.outgoing = [];
    for (const op of ops) op();
  };

  private drainSub(live: LiveSub): Promise<void> {
    live.draining ??= (async () => {
      // Drain, not unsubscribe: messages the server already sent us are still handled.
      if (!this.nc.isClosed() && !live.sub.isClosed()) await live.sub.drain().catch(() => undefined);
      await live.inflight.idle();
      this.subs.delete(live);
    })();
    return live.draining;
  }

  private async shutDown(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.closeTimeoutMs);
    });
    const drained = (async () => {
      await Promise.all([...this.subs].map((live) => this.drainSub(live)));
      this.sendNow(); // the last replies, before the connection drains
      if (!this.nc.isClosed()) await this.nc.drain();
    })();
    try {
      await Promise.race([drained, gaveUp]);
    } finally {
      clearTimeout(timer);
      this.sendNow();
      if (!this.nc.isClosed()) await this.nc.close();
      // No reply can come any more: what still waits fails now rather than at its timeout.
      for (const waiting of this.awaiting.values()) {
        if (waiting.timer) clearTimeout(waiting.timer);
        waiting.reject(errors.busTimeout(waiting.subject));
      }
      this.awaiting.clear();
    }
  }

  private assertOpen(): void {
    if (this.closing) throw errors.unavailable('Bus connection is closed');
  }
}

/** nats.js decodes a message's subject on first access; most handlers never look at it. */
class LazyContext implements MessageContext {
  constructor(private readonly msg: Msg) {}

  get subject(): string {
    return this.msg.subject;
  }
}

function requestError(err: unknown, subject: string): Error {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === ErrorCode.Timeout) return errors.busTimeout(subject);
  if (code === ErrorCode.NoResponders) return errors.noResponders(subject);
  return errors.unavailable(`Bus request on ${subject} failed: ${String(code ?? err)}`);
}

export async function connectNatsBus(options: NatsBusOptions): Promise<NatsBus> {
  const nc = await connect({
    servers: options.servers,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 250,
    // nats.js captures two stack traces per request for its own errors; ours are rebuilt as
    // ServiceErrors without them, so that work would only cost throughput.
    noAsyncTraces: true,
  });
  return new NatsBus(nc, options);
}
