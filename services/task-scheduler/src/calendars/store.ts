/** The calendars' collections and the queries on them (one place for the indexes they need). */
import { createHash } from 'node:crypto';
import type { Caller } from '@notetaker/contracts';
import { errors } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';
import type { CalendarDoc, CalendarEventDoc } from './records.js';

export const CALENDAR_NOT_FOUND = 'Not found: no such calendar, or another key’s';
export const EVENT_NOT_FOUND = 'Not found: no such event in this calendar’s next 7 days';

/** The owner as stored: a key's token id, or the web's account (meetings' `ownerOf`, the same split). */
export function ownerKeyOf(caller: Caller): string {
  return caller.kind === 'token' ? `token:${caller.tokenId}` : `ui:${caller.accountId}`;
}

/** An occurrence's id: stable while the provider's key of it is (a moved event keeps it). */
export function eventIdOf(calendarId: string, key: string): string {
  return `evt_${createHash('sha256').update(`${calendarId}\n${key}`).digest('base64url').slice(0, 24)}`;
}

export class CalendarStore {
  readonly calendars: Collection<CalendarDoc>;
  readonly events: Collection<CalendarEventDoc>;

  constructor(store: Store) {
    this.calendars = store.collection<CalendarDoc>('calendars');
    this.events = store.collection<CalendarEventDoc>('calendar_events');
  }

  async init(): Promise<void> {
    await this.calendars.createIndex({ ownerId: 1 });
    await this.events.createIndex({ calendarId: 1 });
    await this.events.createIndex({ bot: 1 });
  }

  /** The caller's calendar, or the one 404 (another key's is not told apart from none). */
  async owned(caller: Caller, calendarId: string): Promise<CalendarDoc> {
    const doc = await this.calendars.findOne({ _id: calendarId });
    if (!doc || doc.ownerId !== ownerKeyOf(caller)) throw errors.notFound(CALENDAR_NOT_FOUND);
    return doc;
  }

  ofCalendar(calendarId: string): Promise<CalendarEventDoc[]> {
    return this.events.find({ calendarId });
  }
}
