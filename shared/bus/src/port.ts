/**
 * The bus port. Services talk only through this interface; `nats.ts` and `memory.ts` implement it
 * with identical semantics, proven by one contract suite (test/bus.contract.ts).
 *
 * Payloads are JSON values. A `serve` handler's return value is the reply; a ServiceError it throws
 * reaches the requester rebuilt as a ServiceError (code, message, status, retryable). Any other
 * thrown error reaches the requester as `internal` without its message.
 */
export interface MessageContext {
  subject: string;
}

export type RequestHandler = (data: unknown, ctx: MessageContext) => unknown | Promise<unknown>;
export type EventHandler = (data: unknown, ctx: MessageContext) => void | Promise<void>;

export interface RequestOptions {
  /** Milliseconds before the request fails with `bus_timeout`. Default 5000. */
  timeoutMs?: number;
}

export interface SubscribeOptions {
  /** Members of one queue group share the messages: each message goes to exactly one of them. */
  queue?: string;
}

export interface Subscription {
  unsubscribe(): Promise<void>;
}

export interface Bus {
  /** Sends a request and resolves with the reply. Rejects with `bus_timeout` or `no_responders`. */
  request<T = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<T>;
  /** Answers requests on a subject (wildcards allowed), usually in a queue group. */
  serve(subject: string, handler: RequestHandler, options?: SubscribeOptions): Subscription;
  /** Fire-and-forget. Messages of one publisher on one subject arrive in order. */
  publish(subject: string, data: unknown): void;
  /** Receives published messages; `*` matches one token and `>` the rest. */
  subscribe(subject: string, handler: EventHandler, options?: SubscribeOptions): Subscription;
  /** Resolves when everything published so far has reached the server (memory: is delivered). */
  flush(): Promise<void>;
  /** Stops receiving, lets in-flight handlers finish, then closes. Idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;
