/**
 * What the calendars store: one document per connected calendar (its credentials sealed) and one
 * per occurrence with a meeting link in the sync window (its bot's state), and how they become the
 * API's shapes (shared/contracts' `calendar` and `calendarEvent`).
 */
import type {
  Calendar,
  CalendarBotSettings,
  CalendarEvent,
  CalendarEventReason,
  CalendarProvider,
  CalendarStatus,
  Platform,
} from '@notetaker/contracts';
import type { SealedSecret } from '@notetaker/secrets';
import type { Document } from '@notetaker/store';

/** What a provider needs to read a calendar: sealed as one secret, opened only to sync. */
export type Credentials =
  | { provider: 'ics'; url: string }
  | { provider: 'google'; clientId: string; clientSecret: string; refreshToken: string; calendarId: string }
  | { provider: 'microsoft'; clientId: string; clientSecret: string; refreshToken: string; tenant: string };

/** Where an incremental sync goes on from (ETag / Last-Modified, Google's syncToken, Graph's deltaLink). */
export interface SyncCursor {
  etag?: string;
  lastModified?: string;
  syncToken?: string;
  deltaLink?: string;
  /** When the window of the last full read began: a window too old is read again in full. */
  windowFrom?: number;
}

export interface CalendarDoc extends Document {
  _id: string;
  ownerId: string;
  /** The key's capabilities when it connected: the bots start with them. */
  capabilities: string[];
  provider: CalendarProvider;
  credentials: SealedSecret;
  /** callbackUrl null: connected from the web (its meetings belong to no key). */
  settings: Omit<CalendarBotSettings, 'callbackUrl'> & { callbackUrl: string | null };
  /** google's calendar id, microsoft's tenant: not secrets, shown. */
  calendarId: string | null;
  tenant: string | null;
  status: CalendarStatus;
  error: string | null;
  lastSyncAt: string | null;
  cursor: SyncCursor;
  /** Consecutive failed syncs: the backoff grows with them. */
  failures: number;
  /** No sync before this (a provider's Retry-After, or the backoff). */
  retryAt: number | null;
  createdAt: string;
}

/** Where an occurrence's bot is. `waiting` until it is due (or not wanted), then one of the others. */
export type BotState = 'waiting' | 'starting' | 'started' | 'already_transcribed' | 'failed';

/** The owner's answer as the provider tells it (ICS: `unknown` unless the feed says declined). */
export type Attendance = 'organizer' | 'accepted' | 'tentative' | 'declined' | 'none' | 'unknown';

export interface CalendarEventDoc extends Document {
  /** `${calendarId}:${eventId}` */
  _id: string;
  calendarId: string;
  ownerId: string;
  eventId: string;
  title: string;
  startAt: number;
  endAt: number;
  meetingUrl: string;
  platform: Platform;
  /** A Zoom passcode written beside a link that carries none. */
  passcode: string | null;
  attendance: Attendance;
  cancelled: boolean;
  /** The owner's choice for this occurrence (PUT .../events/{eventId}); null: the rule decides. */
  override: boolean | null;
  bot: BotState;
  /** The instance that claimed the start, and when (a claim left by a dead one is retried). */
  claimedBy: string | null;
  claimedAt: number | null;
  meetingId: string | null;
  error: string | null;
  /** After a refused start that may pass later (no free seat, a service restarting): not before then. */
  retryAt: number | null;
  /** Starts refused so far (their retries wait longer each time). */
  attempts?: number;
}

/** The part of an event a provider gives; the rest is the bot's. */
export type ProviderFields = Pick<
  CalendarEventDoc,
  'eventId' | 'title' | 'startAt' | 'endAt' | 'meetingUrl' | 'platform' | 'passcode' | 'attendance' | 'cancelled'
>;

/** Whether a bot goes to the occurrence, and why (or why not): one rule for the API and the schedule. */
export function joinDecision(
  calendar: Pick<CalendarDoc, 'provider' | 'settings'>,
  event: CalendarEventDoc,
  now: number,
): { join: boolean; reason: CalendarEventReason } {
  if (event.bot === 'started' || event.bot === 'starting') return { join: true, reason: 'started' };
  if (event.bot === 'already_transcribed') return { join: false, reason: 'already_transcribed' };
  if (event.bot === 'failed') return { join: false, reason: 'start_failed' };
  if (event.cancelled) return { join: false, reason: 'cancelled' };
  if (event.endAt <= now) return { join: false, reason: 'ended' };
  if (event.override !== null) return { join: event.override, reason: 'override' };
  if (event.attendance === 'declined') return { join: false, reason: 'declined' };
  const rule = calendar.settings.join;
  if (rule === 'none') return { join: false, reason: 'rule' };
  if (rule === 'all') return { join: true, reason: 'rule' };
  // `accepted`: a feed seldom says who answered what, so every meeting it does not mark declined.
  const accepted =
    event.attendance === 'organizer' ||
    event.attendance === 'accepted' ||
    (calendar.provider === 'ics' && event.attendance === 'unknown');
  return accepted ? { join: true, reason: 'rule' } : { join: false, reason: 'not_accepted' };
}

export function calendarView(doc: CalendarDoc): Calendar {
  return {
    id: doc._id,
    provider: doc.provider,
    status: doc.status,
    lastSyncAt: doc.lastSyncAt,
    error: doc.error,
    calendarId: doc.calendarId,
    tenant: doc.tenant,
    createdAt: doc.createdAt,
    ...doc.settings,
  };
}

export function eventView(calendar: CalendarDoc, doc: CalendarEventDoc, now: number): CalendarEvent {
  const { join, reason } = joinDecision(calendar, doc, now);
  return {
    eventId: doc.eventId,
    title: doc.title,
    startAt: new Date(doc.startAt).toISOString(),
    endAt: new Date(doc.endAt).toISOString(),
    meetingUrl: doc.meetingUrl,
    platform: doc.platform,
    join,
    reason,
    meetingId: doc.meetingId,
    error: reason === 'start_failed' ? doc.error : null,
  };
}
