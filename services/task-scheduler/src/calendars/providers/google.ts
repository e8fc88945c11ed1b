/**
 * Google Calendar through its API (GOOGLE_CALENDAR_API_URL): the window's events with
 * `singleEvents` (occurrences expanded by Google, exceptions in place), then only what changed
 * with the `syncToken` it gave (cancelled ones come as `status: cancelled`), and a full read again
 * when it answers 410 Gone (the token expired).
 */
import type { CalendarEnv } from '../env.js';
import { findMeetingLink } from '../meeting-links.js';
import type { Attendance, Credentials, SyncCursor } from '../records.js';
import { authorizedGet, jsonOf } from './authorized.js';
import type { HttpClient } from './http-client.js';
import type { AccessTokens } from './oauth.js';
import type { CalendarSource, ReadEvent, SyncResult, SyncWindow } from './provider.js';

const WHAT = 'Google Calendar';
const MAX_PAGES = 50;

interface GoogleTime {
  dateTime?: string;
  date?: string;
}
interface GoogleEvent {
  id: string;
  status?: string;
  summary?: string;
  start?: GoogleTime;
  end?: GoogleTime;
  hangoutLink?: string;
  location?: string;
  description?: string;
  conferenceData?: { entryPoints?: Array<{ entryPointType?: string; uri?: string; passcode?: string }> };
  organizer?: { self?: boolean };
  attendees?: Array<{ self?: boolean; responseStatus?: string }>;
}
interface GooglePage {
  items?: GoogleEvent[];
  nextPageToken?: string;
  nextSyncToken?: string;
}

const RESPONSES: Record<string, Attendance> = {
  accepted: 'accepted',
  declined: 'declined',
  tentative: 'tentative',
  needsAction: 'none',
};

export function attendanceOf(event: GoogleEvent): Attendance {
  if (event.organizer?.self) return 'organizer';
  const self = event.attendees?.find((a) => a.self);
  // No attendees: an event of the owner's own.
  if (!self) return event.attendees?.length ? 'unknown' : 'organizer';
  return RESPONSES[self.responseStatus ?? ''] ?? 'none';
}

function toRead(event: GoogleEvent): ReadEvent | null {
  const start = event.start?.dateTime;
  const end = event.end?.dateTime;
  if (!start) return null;
  const video = event.conferenceData?.entryPoints?.find((p) => p.entryPointType === 'video');
  const link = findMeetingLink([video?.uri, event.hangoutLink, event.location, event.description]);
  if (!link) return null;
  const startAt = Date.parse(start);
  return {
    key: event.id,
    title: (event.summary ?? '(no title)').slice(0, 200),
    startAt,
    endAt: end ? Math.max(startAt, Date.parse(end)) : startAt + 3_600_000,
    meetingUrl: link.url,
    platform: link.platform,
    passcode: link.passcode ?? (link.platform === 'zoom' ? (video?.passcode ?? null) : null),
    attendance: attendanceOf(event),
    cancelled: event.status === 'cancelled',
  };
}

export class GoogleSource implements CalendarSource {
  constructor(
    private readonly http: HttpClient,
    private readonly tokens: AccessTokens,
    private readonly env: Pick<CalendarEnv, 'GOOGLE_CALENDAR_API_URL' | 'GOOGLE_OAUTH_TOKEN_URL'>,
  ) {}

  async read(
    calendarId: string,
    credentials: Credentials,
    cursor: SyncCursor,
    window: SyncWindow,
  ): Promise<SyncResult> {
    if (credentials.provider !== 'google') throw new Error('not a Google calendar');
    if (cursor.syncToken) {
      const changes = await this.pages(calendarId, credentials, { syncToken: cursor.syncToken });
      // 410 Gone: the sync token is no longer valid; read the window in full.
      if (changes !== 'gone') {
        const events: ReadEvent[] = [];
        const removed: string[] = [];
        for (const item of changes.items) {
          const read = item.status === 'cancelled' ? null : toRead(item);
          if (read) events.push(read);
          else removed.push(item.id);
        }
        return { kind: 'changes', events, removed, cursor: { ...cursor, syncToken: changes.syncToken } };
      }
    }
    const full = await this.pages(calendarId, credentials, {
      timeMin: new Date(window.from).toISOString(),
      timeMax: new Date(window.to).toISOString(),
    });
    if (full === 'gone') throw new Error('410 on a full read');
    const events = full.items.flatMap((item) => toRead(item) ?? []);
    return { kind: 'full', events, cursor: { syncToken: full.syncToken } };
  }

  forget(calendarId: string): void {
    this.tokens.forget(calendarId);
  }

  private async pages(
    calendarId: string,
    credentials: Extract<Credentials, { provider: 'google' }>,
    query: Record<string, string>,
  ): Promise<{ items: GoogleEvent[]; syncToken: string | undefined } | 'gone'> {
    const client = { tokenUrl: this.env.GOOGLE_OAUTH_TOKEN_URL, ...credentials };
    const url = `${this.env.GOOGLE_CALENDAR_API_URL}/calendars/${encodeURIComponent(credentials.calendarId)}/events`;
    const items: GoogleEvent[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = { singleEvents: 'true', maxResults: '250', ...query, ...(pageToken && { pageToken }) };
      const response = await authorizedGet(this.http, this.tokens, calendarId, client, WHAT, { url, params });
      if (response.status === 410) return 'gone';
      const body = jsonOf<GooglePage>(WHAT, response);
      items.push(...(body.items ?? []));
      if (!body.nextPageToken) return { items, syncToken: body.nextSyncToken };
      pageToken = body.nextPageToken;
    }
    return { items, syncToken: undefined };
  }
}
