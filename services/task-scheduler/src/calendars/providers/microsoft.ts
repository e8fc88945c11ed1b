/**
 * Microsoft 365 through Graph (MICROSOFT_GRAPH_URL): `me/calendarView/delta` over the window
 * (occurrences expanded by Graph, in UTC by `Prefer: outlook.timezone`), then only what changed
 * from its deltaLink (removed ones come as `@removed`), and a full read again on 410 Gone.
 */
import type { CalendarEnv } from '../env.js';
import { findMeetingLink } from '../meeting-links.js';
import type { Attendance, Credentials, SyncCursor } from '../records.js';
import { authorizedGet, jsonOf } from './authorized.js';
import { CalendarFault } from './errors.js';
import type { HttpClient } from './http-client.js';
import type { AccessTokens } from './oauth.js';
import type { CalendarSource, ReadEvent, SyncResult, SyncWindow } from './provider.js';
import { wallTimeToInstant } from './zoned-time.js';

const WHAT = 'Microsoft Graph';
const MAX_PAGES = 50;
const SCOPE = 'offline_access https://graph.microsoft.com/Calendars.Read';

interface GraphTime {
  dateTime?: string;
  timeZone?: string;
}
interface GraphEvent {
  id: string;
  '@removed'?: { reason?: string };
  subject?: string;
  start?: GraphTime;
  end?: GraphTime;
  isAllDay?: boolean;
  isCancelled?: boolean;
  isOrganizer?: boolean;
  responseStatus?: { response?: string };
  onlineMeeting?: { joinUrl?: string } | null;
  onlineMeetingUrl?: string | null;
  location?: { displayName?: string };
  bodyPreview?: string;
  body?: { content?: string };
}
interface GraphPage {
  value?: GraphEvent[];
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
}

const RESPONSES: Record<string, Attendance> = {
  organizer: 'organizer',
  accepted: 'accepted',
  tentativelyAccepted: 'tentative',
  declined: 'declined',
  notResponded: 'none',
  none: 'none',
};

function instantOf(time: GraphTime | undefined): number | null {
  if (!time?.dateTime) return null;
  const zone = time.timeZone && time.timeZone !== 'UTC' ? time.timeZone : null;
  // Graph writes seven digits of fraction ("2026-01-05T15:00:00.0000000"): the milliseconds count too.
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3})\d*)?/.exec(time.dateTime);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const ms = match[7] ? Number(match[7].padEnd(3, '0')) : 0;
  return wallTimeToInstant({ year, month, day, hour, minute, second }, zone) + ms;
}

function toRead(event: GraphEvent): ReadEvent | null {
  if (event.isAllDay) return null;
  const startAt = instantOf(event.start);
  if (startAt === null) return null;
  const link = findMeetingLink([
    event.onlineMeeting?.joinUrl,
    event.onlineMeetingUrl,
    event.location?.displayName,
    event.body?.content,
    event.bodyPreview,
  ]);
  if (!link) return null;
  return {
    key: event.id,
    title: (event.subject ?? '(no title)').slice(0, 200),
    startAt,
    endAt: Math.max(startAt, instantOf(event.end) ?? startAt + 3_600_000),
    meetingUrl: link.url,
    platform: link.platform,
    passcode: link.passcode,
    attendance: event.isOrganizer ? 'organizer' : (RESPONSES[event.responseStatus?.response ?? ''] ?? 'unknown'),
    cancelled: event.isCancelled === true,
  };
}

export class MicrosoftSource implements CalendarSource {
  constructor(
    private readonly http: HttpClient,
    private readonly tokens: AccessTokens,
    private readonly env: Pick<CalendarEnv, 'MICROSOFT_GRAPH_URL' | 'MICROSOFT_LOGIN_URL'>,
  ) {}

  async read(
    calendarId: string,
    credentials: Credentials,
    cursor: SyncCursor,
    window: SyncWindow,
  ): Promise<SyncResult> {
    if (credentials.provider !== 'microsoft') throw new Error('not a Microsoft calendar');
    if (cursor.deltaLink) {
      const changes = await this.pages(calendarId, credentials, cursor.deltaLink);
      if (changes !== 'gone') {
        const events: ReadEvent[] = [];
        const removed: string[] = [];
        for (const item of changes.items) {
          const read = item['@removed'] ? null : toRead(item);
          if (read) events.push(read);
          else removed.push(item.id);
        }
        return { kind: 'changes', events, removed, cursor: { ...cursor, deltaLink: changes.deltaLink } };
      }
    }
    const first = new URL(`${this.env.MICROSOFT_GRAPH_URL}/me/calendarView/delta`);
    first.searchParams.set('startDateTime', new Date(window.from).toISOString());
    first.searchParams.set('endDateTime', new Date(window.to).toISOString());
    const full = await this.pages(calendarId, credentials, first.toString());
    if (full === 'gone') throw new CalendarFault('error', `${WHAT} answered HTTP 410 to a full read`);
    return {
      kind: 'full',
      events: full.items.flatMap((item) => (item['@removed'] ? [] : (toRead(item) ?? []))),
      cursor: { deltaLink: full.deltaLink },
    };
  }

  forget(calendarId: string): void {
    this.tokens.forget(calendarId);
  }

  private async pages(
    calendarId: string,
    credentials: Extract<Credentials, { provider: 'microsoft' }>,
    start: string,
  ): Promise<{ items: GraphEvent[]; deltaLink: string | undefined } | 'gone'> {
    const client = {
      tokenUrl: `${this.env.MICROSOFT_LOGIN_URL}/${encodeURIComponent(credentials.tenant)}/oauth2/v2.0/token`,
      scope: SCOPE,
      ...credentials,
    };
    const origin = new URL(this.env.MICROSOFT_GRAPH_URL).origin;
    const items: GraphEvent[] = [];
    let url = start;
    for (let page = 0; page < MAX_PAGES; page++) {
      // The links Graph hands out carry our token next: never toward another host.
      if (new URL(url).origin !== origin) throw new CalendarFault('error', `${WHAT} gave a link to another host`);
      const response = await authorizedGet(this.http, this.tokens, calendarId, client, WHAT, {
        url,
        headers: { Prefer: 'outlook.timezone="UTC", odata.maxpagesize=100' },
      });
      if (response.status === 410) return 'gone';
      const body = jsonOf<GraphPage>(WHAT, response);
      items.push(...(body.value ?? []));
      const next = body['@odata.nextLink'];
      if (!next) return { items, deltaLink: body['@odata.deltaLink'] };
      url = next;
    }
    return { items, deltaLink: undefined };
  }
}
