/**
 * A provider API request with the calendar's access token: a 401 refreshes the token at once and
 * tries once more (that is how a revocation shows: the refresh then fails with invalid_grant), a
 * 429 or 5xx waits for the provider's Retry-After.
 */
import type { AxiosRequestConfig, AxiosResponse } from 'axios';
import { CalendarFault } from './errors.js';
import { overloaded, unreachable, type HttpClient } from './http-client.js';
import type { AccessTokens, OAuthClient } from './oauth.js';

export async function authorizedGet(
  http: HttpClient,
  tokens: AccessTokens,
  calendarId: string,
  client: OAuthClient,
  what: string,
  config: AxiosRequestConfig,
): Promise<AxiosResponse<string>> {
  for (let attempt = 0; ; attempt++) {
    const token = await tokens.get(calendarId, client, attempt > 0);
    let response;
    try {
      response = await http.request({
        ...config,
        method: 'GET',
        headers: { ...config.headers, Authorization: `Bearer ${token}`, Accept: 'application/json' },
      });
    } catch (err) {
      throw unreachable(what, err);
    }
    if (response.status === 401 && attempt === 0) continue;
    if (response.status === 401) throw new CalendarFault('error', `${what} refused a fresh access token (HTTP 401)`);
    const busy = overloaded(what, response);
    if (busy) throw busy;
    return response;
  }
}

/** The JSON of a 200, or the calendar's error naming what answered otherwise. */
export function jsonOf<T>(what: string, response: AxiosResponse<string>): T {
  if (response.status !== 200) throw new CalendarFault('error', `${what} answered HTTP ${response.status}`);
  try {
    return JSON.parse(response.data) as T;
  } catch {
    throw new CalendarFault('error', `${what} did not answer with JSON`);
  }
}
