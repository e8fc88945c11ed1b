/**
 * One interface for every kind of calendar: read what changed since the cursor. A provider holds
 * no state of its own between reads but its access tokens; the cursor is stored with the calendar.
 */
import type { Credentials, ProviderFields, SyncCursor } from '../records.js';

/** An occurrence as read, before it has an id: `key` is stable for the occurrence (moves keep it). */
export type ReadEvent = Omit<ProviderFields, 'eventId'> & { key: string };

export type SyncResult =
  /** Every occurrence of the window (what is not among them is gone). */
  | { kind: 'full'; events: ReadEvent[]; cursor: SyncCursor }
  /** Only what changed: `removed` are keys that are gone. */
  | { kind: 'changes'; events: ReadEvent[]; removed: string[]; cursor: SyncCursor }
  /** Nothing changed since the cursor (a 304). */
  | { kind: 'unchanged'; cursor: SyncCursor };

export interface SyncWindow {
  from: number;
  to: number;
}

export interface CalendarSource {
  read(calendarId: string, credentials: Credentials, cursor: SyncCursor, window: SyncWindow): Promise<SyncResult>;
  /** Forgets what it keeps for a calendar (its access token) once the calendar is gone. */
  forget(calendarId: string): void;
}
