/**
 * One sync of one calendar: its provider reads what changed, and the stored occurrences follow
 * (new ones added, moved ones moved, vanished ones removed unless their bot has started), then the
 * calendar's status says how it went. Faults never escape: they become the status (`error` with
 * its sentence and a retry time, or `disconnected`).
 */
import type { Logger } from '@notetaker/observability';
import type { SecretBox } from '@notetaker/secrets';
import type { CalendarMetrics } from './metrics.js';
import type { CalendarSource, ReadEvent, SyncWindow } from './providers/provider.js';
import { CalendarFault } from './providers/errors.js';
import type { CalendarDoc, CalendarEventDoc, Credentials, ProviderFields, SyncCursor } from './records.js';
import { eventIdOf, type CalendarStore } from './store.js';

const DAY = 86_400_000;
/** The window read: from half a day back (meetings under way) to 8 days on (the API shows 7). */
export const WINDOW_BACK_MS = DAY / 2;
export const WINDOW_AHEAD_MS = 8 * DAY;
/** A window read this long ago is read again in full: the days it did not reach are near now. */
const WINDOW_REFRESH_MS = DAY;

export interface SyncDeps {
  store: CalendarStore;
  sources: Record<CalendarDoc['provider'], CalendarSource>;
  box: SecretBox;
  intervalMs: number;
  logger: Logger;
  metrics: CalendarMetrics;
}

/** The retry delay after `failures` failed syncs in a row: 1 s doubling, at most the interval. */
export function backoffMs(failures: number, intervalMs: number): number {
  return Math.min(intervalMs, 1000 * 2 ** Math.min(failures - 1, 16));
}

/** Syncs the calendar; returns whether its occurrences changed (the schedule then reloads it). */
export async function syncCalendar(deps: SyncDeps, calendarId: string): Promise<boolean> {
  const calendar = await deps.store.calendars.findOne({ _id: calendarId });
  if (!calendar) return false;
  const now = Date.now();
  const window: SyncWindow = { from: now - WINDOW_BACK_MS, to: now + WINDOW_AHEAD_MS };
  const stale = !calendar.cursor.windowFrom || now - calendar.cursor.windowFrom > WINDOW_REFRESH_MS;
  const cursor: SyncCursor = stale ? {} : calendar.cursor;
  const credentials = JSON.parse(deps.box.open(calendar.credentials)) as Credentials;
  const started = performance.now();
  try {
    const result = await deps.sources[calendar.provider].read(calendarId, credentials, cursor, window);
    let changed = false;
    if (result.kind === 'full') changed = await replaceAll(deps, calendar, result.events, now);
    if (result.kind === 'changes') changed = await applyChanges(deps, calendar, result.events, result.removed, now);
    await deps.store.calendars.updateOne(
      { _id: calendarId },
      {
        $set: {
          status: 'ok',
          error: null,
          lastSyncAt: new Date().toISOString(),
          cursor: { ...result.cursor, windowFrom: stale ? window.from : calendar.cursor.windowFrom },
          failures: 0,
          retryAt: null,
        },
      },
    );
    deps.metrics.syncs.inc({ provider: calendar.provider, outcome: result.kind });
    deps.metrics.syncSeconds.observe({ provider: calendar.provider }, (performance.now() - started) / 1000);
    return changed;
  } catch (err) {
    await recordFault(deps, calendar, err);
    return false;
  }
}

async function recordFault(deps: SyncDeps, calendar: CalendarDoc, err: unknown): Promise<void> {
  const fault =
    err instanceof CalendarFault ? err : new CalendarFault('error', 'The calendar could not be read; retrying later');
  if (!(err instanceof CalendarFault))
    deps.logger.error({ err, calendarId: calendar._id, provider: calendar.provider }, 'calendar sync failed');
  const failures = calendar.failures + 1;
  if (fault.kind === 'disconnected') {
    // Only the owner can mend a refused grant: no retry until it connects the calendar again.
    if (calendar.status !== 'disconnected') {
      deps.logger.warn(
        { calendarId: calendar._id, provider: calendar.provider },
        'calendar disconnected: the provider refused its refresh token',
      );
      deps.metrics.disconnected.inc({ provider: calendar.provider });
    }
    await deps.store.calendars.updateOne(
      { _id: calendar._id },
      { $set: { status: 'disconnected', error: fault.message, failures, retryAt: null } },
    );
  } else {
    const delay = Math.max(fault.retryAfterMs ?? 0, backoffMs(failures, deps.intervalMs));
    await deps.store.calendars.updateOne(
      { _id: calendar._id },
      { $set: { status: 'error', error: fault.message, failures, retryAt: Date.now() + delay } },
    );
  }
  deps.metrics.syncs.inc({ provider: calendar.provider, outcome: fault.kind });
}

type Fields = Pick<CalendarEventDoc, '_id' | 'calendarId' | 'ownerId'> & ProviderFields;

function fieldsOf(calendar: CalendarDoc, read: ReadEvent): Fields {
  const eventId = eventIdOf(calendar._id, read.key);
  return {
    _id: `${calendar._id}:${eventId}`,
    calendarId: calendar._id,
    ownerId: calendar.ownerId,
    eventId,
    title: read.title,
    startAt: read.startAt,
    endAt: read.endAt,
    meetingUrl: read.meetingUrl,
    platform: read.platform,
    passcode: read.passcode,
    attendance: read.attendance,
    cancelled: read.cancelled,
  };
}

const COMPARED = [
  'title',
  'startAt',
  'endAt',
  'meetingUrl',
  'platform',
  'passcode',
  'attendance',
  'cancelled',
] as const;

/** Writes an occurrence as read; returns whether anything changed. */
async function upsert(deps: SyncDeps, existing: CalendarEventDoc | undefined, fields: Fields): Promise<boolean> {
  if (!existing) {
    await deps.store.events.insertOne({
      ...fields,
      override: null,
      bot: 'waiting',
      claimedBy: null,
      claimedAt: null,
      meetingId: null,
      error: null,
      retryAt: null,
    });
    return true;
  }
  if (COMPARED.every((key) => existing[key] === fields[key])) return false;
  const { _id, ...set } = fields;
  // A bot that could not go (a bot there already, a refused start) may go to the moved meeting.
  const moved = existing.startAt !== fields.startAt || existing.meetingUrl !== fields.meetingUrl;
  const again = moved && (existing.bot === 'already_transcribed' || existing.bot === 'failed');
  await deps.store.events.updateOne(
    { _id },
    { $set: again ? { ...set, bot: 'waiting', error: null, retryAt: null } : moved ? { ...set, retryAt: null } : set },
  );
  return true;
}

/** Whether a vanished occurrence's record goes: yes unless its bot started (its meetingId stays shown). */
const removable = (doc: CalendarEventDoc) => doc.bot !== 'started' && doc.bot !== 'starting';

async function replaceAll(deps: SyncDeps, calendar: CalendarDoc, events: ReadEvent[], now: number): Promise<boolean> {
  const existing = new Map((await deps.store.ofCalendar(calendar._id)).map((doc) => [doc._id, doc]));
  let changed = false;
  const seen = new Set<string>();
  for (const read of events) {
    const fields = fieldsOf(calendar, read);
    // The same occurrence twice in one feed is one occurrence.
    if (seen.has(fields._id)) continue;
    seen.add(fields._id);
    if (await upsert(deps, existing.get(fields._id), fields)) changed = true;
  }
  for (const doc of existing.values()) {
    if (seen.has(doc._id)) continue;
    if (removable(doc) || doc.endAt < now - WINDOW_BACK_MS) {
      await deps.store.events.deleteOne({ _id: doc._id });
      changed = true;
    }
  }
  return changed;
}

async function applyChanges(
  deps: SyncDeps,
  calendar: CalendarDoc,
  events: ReadEvent[],
  removed: string[],
  now: number,
): Promise<boolean> {
  const existing = new Map((await deps.store.ofCalendar(calendar._id)).map((doc) => [doc._id, doc]));
  let changed = false;
  for (const read of events) {
    const fields = fieldsOf(calendar, read);
    if (await upsert(deps, existing.get(fields._id), fields)) changed = true;
  }
  for (const key of removed) {
    const doc = existing.get(`${calendar._id}:${eventIdOf(calendar._id, key)}`);
    if (doc && removable(doc)) {
      await deps.store.events.deleteOne({ _id: doc._id });
      changed = true;
    }
  }
  for (const doc of existing.values()) {
    if (doc.endAt < now - WINDOW_BACK_MS) await deps.store.events.deleteOne({ _id: doc._id });
  }
  return changed;
}
