/**
 * ICS feeds: the feed read by HTTP with ETag / Last-Modified (a 304 costs nothing), parsed and
 * expanded by ical.js (ical-expand.ts). The address is the owner's secret: it is never in a
 * sentence, a log line or an answer.
 */
import { redactUrls } from '@notetaker/observability';
import type { Credentials, SyncCursor } from '../records.js';
import { CalendarFault } from './errors.js';
import { expandCalendar, NotICalendarError, parseCalendar } from './ical-expand.js';
import { overloaded, unreachable, type HttpClient } from './http-client.js';
import type { CalendarSource, SyncResult, SyncWindow } from './provider.js';

const FEED = 'The feed';

/** webcal:// is https:// by another name (Apple, Outlook and Google hand them out so). */
export function feedAddress(url: string): string {
  return url.replace(/^webcal:/i, 'https:');
}

export class IcsSource implements CalendarSource {
  constructor(private readonly http: HttpClient) {}

  async read(
    _calendarId: string,
    credentials: Credentials,
    cursor: SyncCursor,
    window: SyncWindow,
  ): Promise<SyncResult> {
    if (credentials.provider !== 'ics') throw new Error('not an ICS calendar');
    let response;
    try {
      response = await this.http.request({
        method: 'GET',
        url: feedAddress(credentials.url),
        headers: {
          Accept: 'text/calendar, */*;q=0.5',
          ...(cursor.etag && { 'If-None-Match': cursor.etag }),
          ...(cursor.lastModified && { 'If-Modified-Since': cursor.lastModified }),
        },
      });
    } catch (err) {
      throw unreachable(FEED, err);
    }
    if (response.status === 304) return { kind: 'unchanged', cursor };
    const busy = overloaded(FEED, response);
    if (busy) throw busy;
    if (response.status !== 200) throw new CalendarFault('error', `${FEED} answered HTTP ${response.status}`);
    let root;
    try {
      root = parseCalendar(response.data);
    } catch (err) {
      if (err instanceof NotICalendarError) throw new CalendarFault('error', `${FEED} did not answer with iCalendar`);
      throw err;
    }
    const etag = response.headers.etag;
    const lastModified = response.headers['last-modified'];
    let events;
    try {
      events = expandCalendar(root, window);
    } catch (err) {
      throw new CalendarFault(
        'error',
        `${FEED} holds an event that cannot be read (${redactUrls(String((err as Error).message)).slice(0, 200)})`,
      );
    }
    return {
      kind: 'full',
      events,
      cursor: {
        ...(typeof etag === 'string' && { etag }),
        ...(typeof lastModified === 'string' && { lastModified }),
      },
    };
  }

  forget(): void {}
}
