/**
 * Calls from pages to the services behind the gateway. A page must survive a service that is not
 * running (yet): `settle` turns "nobody answers" into a value the page shows as "service
 * unavailable", while a real answer (404, 409, 400) stays an answer.
 */
import { call, type Bus } from '@notetaker/bus';
import { ServiceError, type ReplyOf, type RequestOf, type Route } from '@notetaker/contracts';

/** Pages must load fast; a service that has not answered in this time is shown as unavailable. */
export const PAGE_REQUEST_TIMEOUT_MS = 3000;

/** A request of `route` from a page: its reply checked, given up on after `timeoutMs`. */
export function ask<R extends Route>(
  bus: Bus,
  route: R,
  data: RequestOf<R>,
  timeoutMs = PAGE_REQUEST_TIMEOUT_MS,
): Promise<ReplyOf<R>> {
  return call(bus, route, data, { timeoutMs });
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
