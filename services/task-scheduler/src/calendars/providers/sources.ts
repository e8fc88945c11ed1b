/** The three providers behind the one interface, with their HTTP clients and token caches. */
import type { GuardedAgents } from '@notetaker/net';
import type { CalendarEnv } from '../env.js';
import type { CalendarDoc } from '../records.js';
import { GoogleSource } from './google.js';
import { createHttpClient } from './http-client.js';
import { IcsSource } from './ics.js';
import { MicrosoftSource } from './microsoft.js';
import { AccessTokens } from './oauth.js';
import type { CalendarSource } from './provider.js';

export type Sources = Record<CalendarDoc['provider'], CalendarSource>;

/**
 * `feedAgents` hold feeds (addresses users give) to the address policy; the providers' API and
 * token addresses are the operator's settings. `onRotated`: a provider handed out a new refresh token.
 */
export function createSources(
  env: CalendarEnv,
  feedAgents: GuardedAgents,
  onRotated: (calendarId: string, refreshToken: string) => Promise<void>,
): Sources {
  const api = createHttpClient();
  return {
    ics: new IcsSource(createHttpClient(feedAgents)),
    google: new GoogleSource(api, new AccessTokens('Google', onRotated), env),
    microsoft: new MicrosoftSource(api, new AccessTokens('Microsoft', onRotated), env),
  };
}
