/**
 * The calendars' HTTP: axios through the agents that hold every connection to the outbound
 * address policy (@notetaker/net), with a time limit and a size limit, and the faults every
 * provider turns into the same sentences (unreachable, refused address, Retry-After).
 */
import { Axios, AxiosError, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { GuardedAgents } from '@notetaker/net';
import { CalendarFault, retryAfterMs } from './errors.js';

export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface HttpClient {
  request(config: AxiosRequestConfig): Promise<AxiosResponse<string>>;
}

/** `agents`: the guarded ones for addresses users give (feeds); none for the operator's provider addresses. */
export function createHttpClient(agents?: GuardedAgents): HttpClient {
  const client = new Axios({
    timeout: TIMEOUT_MS,
    maxContentLength: MAX_RESPONSE_BYTES,
    maxBodyLength: MAX_RESPONSE_BYTES,
    maxRedirects: 5,
    responseType: 'text',
    // Every status is the caller's to read: a 304, a 401 to refresh on, a 429 to wait for.
    validateStatus: () => true,
    transformResponse: [(data: unknown) => data],
    ...(agents && { httpAgent: agents.http, httpsAgent: agents.https }),
  });
  return { request: (config) => client.request<string>(config) };
}

/** A request that did not get an answer, as a sentence about `what` (no address in it). */
export function unreachable(what: string, err: unknown): CalendarFault {
  if (err instanceof AxiosError && /maxContentLength/.test(err.message))
    return new CalendarFault('error', `${what} is larger than 5 MB`);
  const refused = findRefusal(err);
  if (refused) return new CalendarFault('error', `${what}'s address is refused (${refused})`);
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT')
    return new CalendarFault('error', `${what} did not answer in ${TIMEOUT_MS / 1000} s`);
  return new CalendarFault('error', `${what} could not be reached${code ? ` (${code})` : ''}`);
}

function findRefusal(err: unknown): string | null {
  for (let e = err as { code?: string; reason?: string; cause?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (e.code === 'ECALLBACKREFUSED' && typeof e.reason === 'string') return e.reason;
    e = e.cause as typeof e;
  }
  return null;
}

/** A 429 or 5xx: retried after the provider's Retry-After, else the backoff's own delay. */
export function overloaded(what: string, response: AxiosResponse): CalendarFault | null {
  if (response.status !== 429 && response.status < 500) return null;
  return new CalendarFault(
    'error',
    `${what} answered HTTP ${response.status}; retrying later`,
    retryAfterMs(response.headers['retry-after']),
  );
}
