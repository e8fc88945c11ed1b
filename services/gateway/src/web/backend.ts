/**
 * What pages ask of the services behind the gateway: the API's operations (operations/index.ts),
 * validated by their schemas and answered by their handlers exactly as REST and MCP do, as the
 * signed-in account. A page must survive a service that is not running (yet): `settle` turns
 * "nobody answers" into a value the page shows as "service unavailable", while a real answer
 * (404, 409, 400) stays an answer.
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Bus } from '@notetaker/bus';
import { ServiceError } from '@notetaker/contracts';
import { baseUrlOf } from '../http/public-url.js';
import { perform, type Operation, type RequestContext } from '../operations/operation.js';
import { uiCaller } from './context.js';

/** Pages must load fast; a service that has not answered in this time is shown as unavailable. */
export const PAGE_REQUEST_TIMEOUT_MS = 3000;

/** What a handler may need of this request (an absolute link's base), as REST gives it. */
export const requestOf = (ctx: Context): RequestContext => ({ baseUrl: baseUrlOf(ctx) });

/** An operation done from a page (a change: it is given the operation's own time). */
export function operate<I extends z.ZodType, O extends z.ZodType>(
  ctx: Context,
  bus: Bus,
  op: Operation<I, O>,
  raw: z.input<I>,
): Promise<z.infer<O>> {
  return perform(op, bus, uiCaller(ctx), raw, requestOf(ctx));
}

/** An operation's handler, given input a form already checked with the operation's schema (form-input.ts). */
export function handle<I extends z.ZodType, O extends z.ZodType>(
  ctx: Context,
  bus: Bus,
  op: Operation<I, O>,
  input: z.infer<I>,
): Promise<z.infer<O>> {
  return op.handler(bus, uiCaller(ctx), input, requestOf(ctx));
}

/** An operation that reads for a page: given up on after `timeoutMs`, then shown as unavailable. */
export function read<I extends z.ZodType, O extends z.ZodType>(
  ctx: Context,
  bus: Bus,
  op: Operation<I, O>,
  raw: z.input<I>,
  timeoutMs = PAGE_REQUEST_TIMEOUT_MS,
): Promise<z.infer<O>> {
  return inTime(operate(ctx, bus, op, raw), timeoutMs, op.name);
}

/**
 * `work`, or a retryable 504 once `timeoutMs` have passed. The work goes on and its late answer is
 * dropped (Promise.race keeps listening to it, so a late failure is no unhandled rejection).
 */
export function inTime<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ServiceError('page_timeout', `No answer to ${what} in time`, 504, true)),
      timeoutMs,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** No responder, a timeout, or a service saying it is unavailable: worth "try again later". */
export function isUnavailable(err: unknown): boolean {
  return err instanceof ServiceError && (err.retryable || err.status === 503 || err.status === 504);
}

export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; unavailable: true; error: ServiceError }
  | { ok: false; unavailable: false; error: ServiceError };

/** The reply or the ServiceError; anything else (a bug of ours) is thrown on. */
export async function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return isUnavailable(err)
      ? { ok: false, unavailable: true, error: err }
      : { ok: false, unavailable: false, error: err };
  }
}
