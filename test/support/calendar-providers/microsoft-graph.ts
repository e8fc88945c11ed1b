/**
 * Microsoft Graph's calendar view delta as the calendars read it, with the identity platform's
 * token endpoint (`/<tenant>/oauth2/v2.0/token`): `me/calendarView/delta` over a window, pages by
 * @odata.nextLink, an @odata.deltaLink after the last, and from it only what changed (removed
 * events as `@removed`), 410 once delta links are invalidated. Times in UTC as `Prefer:
 * outlook.timezone="UTC"` asks.
 */
import type { ServerResponse } from 'node:http';
import { FaultQueue, json, startHttpsServer, type LocalHttpsServer, type RecordedRequest } from './https-server.js';
import { TokenEndpoint } from './oauth-token-endpoint.js';

export interface GraphEvent {
  id: string;
  subject?: string;
  /** UTC, as `2026-01-02T15:04:05.0000000`. */
  start: { dateTime: string; timeZone: 'UTC' };
  end: { dateTime: string; timeZone: 'UTC' };
  isCancelled?: boolean;
  isOrganizer?: boolean;
  responseStatus?: { response: string; time?: string };
  isOnlineMeeting?: boolean;
  onlineMeeting?: { joinUrl: string } | null;
  location?: { displayName: string };
  body?: { contentType: 'html' | 'text'; content: string };
}

const PAGE_SIZE = 3;

export function graphTime(ms: number): { dateTime: string; timeZone: 'UTC' } {
  return { dateTime: new Date(ms).toISOString().replace('Z', '0000'), timeZone: 'UTC' };
}

export interface MicrosoftGraphServer {
  server: LocalHttpsServer;
  tokens: TokenEndpoint;
  faults: FaultQueue;
  /** MICROSOFT_LOGIN_URL and MICROSOFT_GRAPH_URL for the stack. */
  env: Record<string, string>;
  put(event: GraphEvent): void;
  remove(eventId: string): void;
  invalidateDeltaLinks(): void;
  deltas(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startMicrosoftGraphServer(): Promise<MicrosoftGraphServer> {
  const tokens = new TokenEndpoint();
  const faults = new FaultQueue();
  const events = new Map<string, { event: GraphEvent | null; version: number }>();
  let version = 0;
  let validFrom = 0;
  let origin = '';

  const delta = (request: RecordedRequest, response: ServerResponse) => {
    if (!tokens.authorized(request))
      return json(response, 401, {
        error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired.' },
      });
    if (faults.answer(request, response)) return;
    const base = `${origin}/v1.0/me/calendarView/delta`;
    const deltaToken = request.query.get('$deltatoken');
    let chosen: Array<GraphEvent | { id: string; '@removed': { reason: 'deleted' } }>;
    if (deltaToken) {
      const since = Number(deltaToken.slice(1));
      if (!(since >= validFrom))
        return json(response, 410, { error: { code: 'SyncStateNotFound', message: 'resync' } });
      chosen = [...events.entries()]
        .filter(([, e]) => e.version > since)
        .map(([id, e]) => e.event ?? { id, '@removed': { reason: 'deleted' as const } });
    } else {
      const skip = request.query.get('$skiptoken');
      const window = skip
        ? JSON.parse(Buffer.from(skip, 'base64url').toString())
        : {
            from: Date.parse(request.query.get('startDateTime') ?? ''),
            to: Date.parse(request.query.get('endDateTime') ?? ''),
          };
      if (!Number.isFinite(window.from) || !Number.isFinite(window.to))
        return json(response, 400, {
          error: { code: 'ErrorInvalidParameter', message: 'startDateTime and endDateTime are required' },
        });
      const all = [...events.values()]
        .flatMap((e) => (e.event ? [e.event] : []))
        .filter(
          (e) =>
            Date.parse(`${e.end.dateTime.slice(0, 23)}Z`) > window.from &&
            Date.parse(`${e.start.dateTime.slice(0, 23)}Z`) < window.to,
        );
      const offset = window.offset ?? 0;
      const page = all.slice(offset, offset + PAGE_SIZE);
      if (offset + PAGE_SIZE < all.length) {
        const next = Buffer.from(JSON.stringify({ ...window, offset: offset + PAGE_SIZE })).toString('base64url');
        return json(response, 200, { value: page, '@odata.nextLink': `${base}?$skiptoken=${next}` });
      }
      return json(response, 200, { value: page, '@odata.deltaLink': `${base}?$deltatoken=v${version}` });
    }
    json(response, 200, { value: chosen, '@odata.deltaLink': `${base}?$deltatoken=v${version}` });
  };

  const server = await startHttpsServer((request, response) => {
    if (request.method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(request.path))
      return tokens.handle(request, response);
    if (request.method === 'GET' && request.path === '/v1.0/me/calendarView/delta') return delta(request, response);
    json(response, 404, { error: { code: 'ResourceNotFound', message: 'Not Found' } });
  });
  origin = server.origin;

  return {
    server,
    tokens,
    faults,
    env: { MICROSOFT_LOGIN_URL: server.origin, MICROSOFT_GRAPH_URL: `${server.origin}/v1.0` },
    put: (event) => events.set(event.id, { event, version: ++version }),
    remove: (id) => events.set(id, { event: null, version: ++version }),
    invalidateDeltaLinks() {
      validFrom = version + 1;
    },
    deltas: () => server.requests.filter((r) => r.path === '/v1.0/me/calendarView/delta'),
    close: () => server.close(),
  };
}
