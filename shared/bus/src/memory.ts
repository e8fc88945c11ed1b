import { errors } from '@notetaker/contracts';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type Bus,
  type EventHandler,
  type RequestHandler,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
} from './port.js';
import { MemoryBroker, type Delivery, type MemorySub, type MemorySubscriber } from './memory-broker.js';
import { PendingReply } from './pending-reply.js';
import { fromJson, toJson } from './json-payload.js';
import { InflightHandlers, isPromiseLike, reportToStderr, type HandlerErrorReporter } from './inflight.js';
import { assertValidSubject, isWildcardPattern } from './subject-match.js';

export interface MemoryBusOptions {
  /** Connections on the same broker see each other; defaults to one broker per process. */
  broker?: MemoryBroker;
  /** Where failures of event handlers (which have no requester to tell) are reported. */
  onHandlerError?: HandlerErrorReporter;
}

/** The broker `connectBus` uses without a NATS url, so services in one process can talk. */
export const sharedMemoryBroker = new MemoryBroker();

/**
 * In-process adapter with the NATS adapter's semantics (JSON copies, asynchronous delivery,
 * queue groups, typed timeout/no-responders errors); one instance is one "connection".
 */
export class MemoryBus implements Bus, MemorySubscriber {
  private readonly broker: MemoryBroker;
  private readonly onHandlerError: HandlerErrorReporter;
  /** Live subscriptions, with their drain once unsubscribe/close has started. */
  private readonly subs = new Map<MemorySub, Promise<void> | undefined>();
  private closing: Promise<void> | undefined;

  constructor(options: MemoryBusOptions = {}) {
    this.broker = options.broker ?? sharedMemoryBroker;
    this.onHandlerError = options.onHandlerError ?? reportToStderr;
  }

  request<T = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<T> {
    try {
      this.assertOpen();
      assertValidSubject(subject, false);
      if (!this.broker.hasSubscribers(subject)) return Promise.reject(errors.noResponders(subject));
      const json = toJson(data);
      const timeoutMs = options?.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      return new Promise<T>((resolve, reject) => {
        const reply = new PendingReply(subject, resolve as (value: unknown) => void, reject, timeoutMs);
        this.broker.dispatch(subject, json, reply);
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  serve(subject: string, handler: RequestHandler, options?: SubscribeOptions): Subscription {
    return this.addSub(subject, handler, options, true);
  }

  publish(subject: string, data: unknown): void {
    this.assertOpen();
    assertValidSubject(subject, false);
    // Nobody listening: the message is dropped, as NATS would, without encoding it first.
    if (this.broker.hasSubscribers(subject)) this.broker.dispatch(subject, toJson(data), undefined);
  }

  subscribe(subject: string, handler: EventHandler, options?: SubscribeOptions): Subscription {
    return this.addSub(subject, handler, options, false);
  }

  flush(): Promise<void> {
    return this.broker.flush();
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** Called by the broker for each message routed to one of this connection's subscriptions. */
  receive(delivery: Delivery): void {
    const { sub, reply } = delivery;
    let result: unknown;
    try {
      result = sub.handler(fromJson(delivery.json), { subject: delivery.subject });
    } catch (err) {
      this.handlerFailed(delivery, err);
      return;
    }
    if (isPromiseLike(result)) {
      const answered = Promise.resolve(result).then(
        (value) => {
          if (reply && sub.serves) reply.succeed(value);
        },
        (err: unknown) => this.handlerFailed(delivery, err),
      );
      sub.inflight.track(answered);
    } else if (reply && sub.serves) {
      reply.succeed(result);
    }
  }

  private handlerFailed(delivery: Delivery, err: unknown): void {
    if (delivery.reply && delivery.sub.serves) delivery.reply.fail(err);
    else this.onHandlerError(err, delivery.subject);
  }

  private addSub(
    pattern: string,
    handler: RequestHandler | EventHandler,
    options: SubscribeOptions | undefined,
    serves: boolean,
  ): Subscription {
    this.assertOpen();
    assertValidSubject(pattern, true);
    const sub: MemorySub = {
      pattern,
      tokens: isWildcardPattern(pattern) ? pattern.split('.') : undefined,
      queue: options?.queue,
      handler,
      serves,
      owner: this,
      inflight: new InflightHandlers(),
    };
    this.broker.add(sub);
    this.subs.set(sub, undefined);
    return { unsubscribe: () => this.drainSub(sub) };
  }

  /** Like a NATS drain: no new messages, those already routed here are still handled. */
  private drainSub(sub: MemorySub): Promise<void> {
    if (!this.subs.has(sub)) return Promise.resolve();
    let draining = this.subs.get(sub);
    if (!draining) {
      draining = this.finishSub(sub);
      this.subs.set(sub, draining);
    }
    return draining;
  }

  private async finishSub(sub: MemorySub): Promise<void> {
    this.broker.remove(sub);
    await this.broker.flush();
    await sub.inflight.idle();
    this.subs.delete(sub);
  }

  private async shutDown(): Promise<void> {
    await Promise.all([...this.subs.keys()].map((sub) => this.drainSub(sub)));
  }

  private assertOpen(): void {
    if (this.closing) throw errors.unavailable('Bus connection is closed');
  }
}

export function createMemoryBus(options?: MemoryBusOptions): MemoryBus {
  return new MemoryBus(options);
}
