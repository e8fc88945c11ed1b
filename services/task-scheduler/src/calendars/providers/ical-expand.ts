/**
 * An iCalendar text -> its occurrences in a window, through ical.js: RRULE and RDATE expanded,
 * EXDATE left out, and the RECURRENCE-ID exceptions in place of the occurrences they replace
 * (moved, retitled or cancelled), each in its event's time zone (the feed's VTIMEZONE, else the
 * IANA zone its TZID names, else X-WR-TIMEZONE).
 */
import ICAL from 'ical.js';
import { findMeetingLink } from '../meeting-links.js';
import type { Attendance } from '../records.js';
import type { ReadEvent, SyncWindow } from './provider.js';
import { wallTimeToInstant } from './zoned-time.js';

/** A feed whose rule would expand to more occurrences than this is cut there (FREQ=SECONDLY...). */
const MAX_STEPS_PER_SERIES = 20_000;
const TITLE_MAX = 200;

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

export class NotICalendarError extends Error {}

export function parseCalendar(text: string): Component {
  if (!/^\s*BEGIN:VCALENDAR/i.test(text.slice(0, 512))) throw new NotICalendarError('no BEGIN:VCALENDAR');
  try {
    const root = new ICAL.Component(ICAL.parse(text));
    if (root.name !== 'vcalendar') throw new NotICalendarError(root.name);
    return root;
  } catch (err) {
    throw err instanceof NotICalendarError ? err : new NotICalendarError((err as Error).message);
  }
}

export function expandCalendar(root: Component, window: SyncWindow): ReadEvent[] {
  const context = {
    defaultZone: stringOf(root.getFirstPropertyValue('x-wr-timezone')),
    owner: ownerEmail(root),
  };
  const series = new Map<string, { master: Component | null; exceptions: Component[] }>();
  for (const vevent of root.getAllSubcomponents('vevent')) {
    const uid = stringOf(vevent.getFirstPropertyValue('uid'));
    if (!uid) continue;
    const entry = series.get(uid) ?? { master: null, exceptions: [] };
    if (vevent.hasProperty('recurrence-id')) entry.exceptions.push(vevent);
    else entry.master = vevent;
    series.set(uid, entry);
  }
  const out: ReadEvent[] = [];
  let skipped = 0;
  for (const [uid, { master, exceptions }] of series) {
    // One event the library cannot read (a date it cannot parse) costs that event, not the feed.
    try {
      if (master && (master.hasProperty('rrule') || master.hasProperty('rdate'))) {
        expandSeries(uid, master, exceptions, window, context, out);
        continue;
      }
      // A single event, or exceptions whose series the feed does not carry: each stands alone.
      for (const component of master ? [master] : exceptions) {
        const event = new ICAL.Event(component);
        const recurrence = component.hasProperty('recurrence-id') ? event.recurrenceId : null;
        const key = recurrence ? `${uid}@${recurrence.toICALString()}` : uid;
        push(out, key, component, event.startDate, event.endDate, window, context);
      }
    } catch {
      skipped++;
    }
  }
  if (skipped > 0 && out.length === 0 && series.size === skipped)
    throw new Error(`none of its ${skipped} events can be read`);
  return out;
}

interface Context {
  defaultZone: string | null;
  owner: string | null;
}

function expandSeries(
  uid: string,
  master: Component,
  exceptions: Component[],
  window: SyncWindow,
  context: Context,
  out: ReadEvent[],
): void {
  const event = new ICAL.Event(master);
  for (const exception of exceptions) event.relateException(exception);
  const zone = zoneOf(master, context);
  const iterator = event.iterator();
  // An exception may move an occurrence by days: look a week past the window's end.
  const horizon = window.to + 7 * 86_400_000;
  for (let step = 0; step < MAX_STEPS_PER_SERIES; step++) {
    const next = iterator.next();
    if (!next) break;
    if (instantOf(next, zone) > horizon) break;
    const details = event.getOccurrenceDetails(next);
    const component = details.item.component;
    push(
      out,
      `${uid}@${details.recurrenceId.toICALString()}`,
      component,
      details.startDate,
      details.endDate,
      window,
      context,
    );
  }
}

function push(
  out: ReadEvent[],
  key: string,
  component: Component,
  start: Time,
  end: Time | null,
  window: SyncWindow,
  context: Context,
): void {
  // All-day events are no meetings a bot can join.
  if (!start || start.isDate) return;
  const zone = zoneOf(component, context);
  const startAt = instantOf(start, zone);
  const endAt = end ? instantOf(end, zone) : startAt + 3_600_000;
  if (endAt < window.from || startAt > window.to) return;
  const link = findMeetingLink([
    stringOf(component.getFirstPropertyValue('x-google-conference')),
    stringOf(component.getFirstPropertyValue('x-microsoft-skypeteamsmeetingurl')),
    stringOf(component.getFirstPropertyValue('url')),
    stringOf(component.getFirstPropertyValue('location')),
    stringOf(component.getFirstPropertyValue('description')),
    stringOf(component.getFirstPropertyValue('x-alt-desc')),
  ]);
  if (!link) return;
  const status = stringOf(component.getFirstPropertyValue('status'))?.toUpperCase();
  out.push({
    key,
    title: (stringOf(component.getFirstPropertyValue('summary')) ?? '(no title)').slice(0, TITLE_MAX),
    startAt,
    endAt: Math.max(endAt, startAt),
    meetingUrl: link.url,
    platform: link.platform,
    passcode: link.passcode,
    attendance: attendanceOf(component, context.owner),
    cancelled: status === 'CANCELLED',
  });
}

/** A time as an instant: ical.js converts the zones the feed defines; a bare TZID goes through Intl. */
function instantOf(time: Time, zone: string | null): number {
  const tzid = time.zone?.tzid;
  if (tzid && tzid !== 'floating') return time.toJSDate().getTime();
  return wallTimeToInstant(time, zone);
}

function zoneOf(component: Component, context: Context): string | null {
  const tzid = component.getFirstProperty('dtstart')?.getParameter('tzid');
  return (typeof tzid === 'string' && tzid) || context.defaultZone;
}

/** The calendar's owner, when the feed says (Google names a primary calendar's feed by its address). */
function ownerEmail(root: Component): string | null {
  const name = stringOf(root.getFirstPropertyValue('x-wr-calname'));
  return name && /^[^\s@]+@[^\s@]+$/.test(name) ? name.toLowerCase() : null;
}

const PARTSTAT: Record<string, Attendance> = {
  ACCEPTED: 'accepted',
  DECLINED: 'declined',
  TENTATIVE: 'tentative',
  'NEEDS-ACTION': 'none',
};

function attendanceOf(component: Component, owner: string | null): Attendance {
  if (!owner) {
    // No owner named: a feed that marks every attendee declined still tells the owner's answer.
    const states = component.getAllProperties('attendee').map((p) => String(p.getParameter('partstat') ?? ''));
    return states.length > 0 && states.every((s) => s.toUpperCase() === 'DECLINED') ? 'declined' : 'unknown';
  }
  const organizer = stringOf(component.getFirstPropertyValue('organizer'))?.toLowerCase();
  if (organizer === `mailto:${owner}`) return 'organizer';
  for (const attendee of component.getAllProperties('attendee')) {
    if (String(attendee.getFirstValue()).toLowerCase() !== `mailto:${owner}`) continue;
    return PARTSTAT[String(attendee.getParameter('partstat') ?? 'NEEDS-ACTION').toUpperCase()] ?? 'none';
  }
  return 'unknown';
}

function stringOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}
