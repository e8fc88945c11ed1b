/**
 * A secret iCalendar feed as Google, Outlook and iCloud publish them: a long random path, the
 * calendar's text with an ETag and Last-Modified, 304 for a conditional GET that matches. A test
 * changes the text (a moved or cancelled event) or makes it fail: an HTML page, more than 5 MB,
 * a status with Retry-After, or no server at all.
 */
import { createHash, randomBytes } from 'node:crypto';
import { FaultQueue, startHttpsServer, type LocalHttpsServer } from './https-server.js';

export interface IcsFeedServer {
  server: LocalHttpsServer;
  faults: FaultQueue;
  /** A new feed; its secret address. */
  feed(text: string): string;
  set(url: string, text: string): void;
  /** The feed answers an HTML page (a sign-in wall), or this many bytes of iCalendar-looking text. */
  replaceWithHtml(url: string): void;
  replaceWithBytes(url: string, bytes: number): void;
  /** GETs of a feed, and how many were answered 304. */
  hits(url: string): { total: number; notModified: number };
  close(): Promise<void>;
}

export async function startIcsFeedServer(): Promise<IcsFeedServer> {
  const feeds = new Map<string, { body: string; type: string; modified: string }>();
  const counts = new Map<string, { total: number; notModified: number }>();
  const faults = new FaultQueue();
  const server = await startHttpsServer((request, response) => {
    const feed = feeds.get(request.path);
    const count = counts.get(request.path) ?? { total: 0, notModified: 0 };
    counts.set(request.path, count);
    count.total++;
    if (faults.answer(request, response)) return;
    if (!feed) {
      response.writeHead(404);
      return response.end();
    }
    const etag = `"${createHash('sha256').update(feed.body).digest('hex').slice(0, 16)}"`;
    if (request.headers['if-none-match'] === etag) {
      count.notModified++;
      response.writeHead(304, { ETag: etag });
      return response.end();
    }
    response.writeHead(200, { 'Content-Type': feed.type, ETag: etag, 'Last-Modified': feed.modified });
    response.end(feed.body);
  });
  const pathOf = (url: string) => new URL(url.replace(/^webcal:/, 'https:')).pathname;
  const put = (url: string, body: string, type = 'text/calendar; charset=utf-8') =>
    feeds.set(pathOf(url), { body, type, modified: new Date().toUTCString() });
  return {
    server,
    faults,
    feed(text) {
      const url = `${server.origin}/calendar/ical/${randomBytes(16).toString('hex')}/private-${randomBytes(16).toString('hex')}/basic.ics`;
      put(url, text);
      return url;
    },
    set: (url, text) => put(url, text),
    replaceWithHtml: (url) => put(url, '<!doctype html><html><body>Sign in</body></html>', 'text/html'),
    replaceWithBytes: (url, bytes) =>
      put(url, `BEGIN:VCALENDAR\r\n${'X-PAD:'.padEnd(bytes, 'x')}\r\nEND:VCALENDAR\r\n`),
    hits: (url) => counts.get(pathOf(url)) ?? { total: 0, notModified: 0 },
    close: () => server.close(),
  };
}

/** iCalendar times: `20260102T150405Z`. */
export function icsUtc(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** A VCALENDAR around VEVENT bodies (each a list of content lines), with any VTIMEZONEs given. */
export function icsCalendar(events: string[][], options: { name?: string; extra?: string[] } = {}): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//notetaker tests//EN',
    ...(options.name ? [`X-WR-CALNAME:${options.name}`] : []),
    ...(options.extra ?? []),
    ...events.flatMap((body) => ['BEGIN:VEVENT', ...body, 'END:VEVENT']),
    'END:VCALENDAR',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** A one-off meeting at `start` (ms) for `minutes`, its link in LOCATION unless lines say otherwise. */
export function icsMeeting(uid: string, start: number, link: string, more: string[] = [], minutes = 30): string[] {
  return [
    `UID:${uid}`,
    `DTSTAMP:${icsUtc(Date.now())}`,
    `DTSTART:${icsUtc(start)}`,
    `DTEND:${icsUtc(start + minutes * 60_000)}`,
    ...(more.some((line) => line.startsWith('SUMMARY:')) ? [] : [`SUMMARY:Meeting ${uid}`]),
    `LOCATION:${link}`,
    ...more,
  ];
}
