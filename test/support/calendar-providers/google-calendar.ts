/**
 * Google Calendar's API as the calendars read it, with its token endpoint: `events.list` with
 * singleEvents (each occurrence its own event), pages of a few events (nextPageToken), a
 * nextSyncToken after the last page and, given one back, only what changed since (cancelled
 * events as `status: "cancelled"`), 410 Gone once sync tokens are invalidated. Bearer tokens
 * from the token endpoint; faults queued (429 with Retry-After, 503).
 */
import type { ServerResponse } from 'node:http';
import { FaultQueue, json, startHttpsServer, type LocalHttpsServer, type RecordedRequest } from './https-server.js';
import { TokenEndpoint } from './oauth-token-endpoint.js';

export interface GoogleEvent {
  id: string;
  status?: 'confirmed' | 'tentative' | 'cancelled';
  summary?: string;
  start: { dateTime: string; timeZone?: string };
  end: { dateTime: string; timeZone?: string };
  hangoutLink?: string;
  location?: string;
  description?: string;
  conferenceData?: { entryPoints: Array<{ entryPointType: string; uri: string; passcode?: string }> };
  organizer?: { email: string; self?: boolean };
  attendees?: Array<{ email: string; self?: boolean; responseStatus: string }>;
}

const PAGE_SIZE = 3;

export interface GoogleCalendarServer {
  server: LocalHttpsServer;
  tokens: TokenEndpoint;
  faults: FaultQueue;
  /** GOOGLE_OAUTH_TOKEN_URL and GOOGLE_CALENDAR_API_URL for the stack. */
  env: Record<string, string>;
  put(calendarId: string, event: GoogleEvent): void;
  cancel(calendarId: string, eventId: string): void;
  /** Every sync token handed out so far answers 410 from now on. */
  invalidateSyncTokens(): void;
  /** The events.list requests, with whether each was incremental. */
  lists(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startGoogleCalendarServer(): Promise<GoogleCalendarServer> {
  const tokens = new TokenEndpoint();
  const faults = new FaultQueue();
  const calendars = new Map<string, Map<string, { event: GoogleEvent; version: number }>>();
  let version = 0;
  let validFrom = 0;

  const list = (request: RecordedRequest, response: ServerResponse, calendarId: string) => {
    if (!tokens.authorized(request))
      return json(response, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
    if (faults.answer(request, response)) return;
    if (request.query.get('singleEvents') !== 'true')
      return json(response, 400, { error: { code: 400, message: 'this stand-in serves singleEvents only' } });
    const events = [...(calendars.get(calendarId)?.values() ?? [])];
    const syncToken = request.query.get('syncToken');
    let chosen: GoogleEvent[];
    if (syncToken) {
      if (request.query.has('timeMin') || request.query.has('timeMax'))
        return json(response, 400, { error: { code: 400, message: 'syncToken with timeMin/timeMax' } });
      const since = Number(syncToken.slice(1));
      if (!(since >= validFrom))
        return json(response, 410, {
          error: { code: 410, message: 'Sync token is no longer valid, a full sync is required.' },
        });
      chosen = events.filter((e) => e.version > since).map((e) => e.event);
    } else {
      const from = Date.parse(request.query.get('timeMin') ?? '1970-01-01T00:00:00Z');
      const to = Date.parse(request.query.get('timeMax') ?? '2999-01-01T00:00:00Z');
      chosen = events
        .map((e) => e.event)
        .filter((e) => e.status !== 'cancelled')
        .filter((e) => Date.parse(e.end.dateTime) > from && Date.parse(e.start.dateTime) < to);
    }
    const offset = Number(request.query.get('pageToken') ?? 0);
    const page = chosen.slice(offset, offset + PAGE_SIZE);
    const more = offset + PAGE_SIZE < chosen.length;
    json(response, 200, {
      kind: 'calendar#events',
      items: page,
      ...(more ? { nextPageToken: String(offset + PAGE_SIZE) } : { nextSyncToken: `v${version}` }),
    });
  };

  const server = await startHttpsServer((request, response) => {
    if (request.method === 'POST' && request.path === '/token') return tokens.handle(request, response);
    const match = /^\/calendar\/v3\/calendars\/([^/]+)\/events$/.exec(request.path);
    if (request.method === 'GET' && match) return list(request, response, decodeURIComponent(match[1]));
    json(response, 404, { error: { code: 404, message: 'Not Found' } });
  });

  return {
    server,
    tokens,
    faults,
    env: {
      GOOGLE_OAUTH_TOKEN_URL: `${server.origin}/token`,
      GOOGLE_CALENDAR_API_URL: `${server.origin}/calendar/v3`,
    },
    put(calendarId, event) {
      const events = calendars.get(calendarId) ?? new Map();
      calendars.set(calendarId, events);
      events.set(event.id, { event, version: ++version });
    },
    cancel(calendarId, eventId) {
      const entry = calendars.get(calendarId)?.get(eventId);
      if (entry)
        calendars.get(calendarId)!.set(eventId, { event: { ...entry.event, status: 'cancelled' }, version: ++version });
    },
    invalidateSyncTokens() {
      validFrom = version + 1;
    },
    lists: () => server.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/events')),
    close: () => server.close(),
  };
}
