/**
 * Starts one occurrence's bot through the meetings' own start verb, as a meeting of the
 * calendar's owner with the calendar's settings and the event's title. The occurrence is claimed
 * in the store first, so of several scheduler instances (or a lease changing hands) one starts
 * it. One bot per meeting is meeting-session's claim: a meeting a live bot transcribes already
 * (another calendar's, one started by hand) answers `already_transcribed`, and so it stays.
 */
import { call, type Bus } from '@notetaker/bus';
import { routes, ServiceError, type Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { CalendarMetrics } from './metrics.js';
import { joinDecision, type CalendarDoc } from './records.js';
import type { CalendarStore } from './store.js';

export interface StarterDeps {
  bus: Bus;
  store: CalendarStore;
  instanceId: string;
  leadMs: number;
  logger: Logger;
  metrics: CalendarMetrics;
  /** Arms a retry (the schedule's). */
  retry(eventKey: string, at: number): void;
}

/** A refused start that may pass later (no free seat, a service restarting) is tried again this often. */
const RETRY_MS = [5_000, 10_000, 20_000, 30_000];

/** The caller the bots start as: the calendar's key (with its capabilities when it connected), or the web's. */
export function callerOf(calendar: CalendarDoc): Caller {
  const [kind, ...rest] = calendar.ownerId.split(':');
  const id = rest.join(':');
  return kind === 'token'
    ? { kind: 'token', tokenId: id, capabilities: calendar.capabilities }
    : { kind: 'ui', accountId: id };
}

export async function startBot(deps: StarterDeps, eventKey: string): Promise<void> {
  const { store } = deps;
  const event = await store.events.findOne({ _id: eventKey });
  if (!event || event.bot !== 'waiting') return;
  const calendar = await store.calendars.findOne({ _id: event.calendarId });
  const now = Date.now();
  if (!calendar || !joinDecision(calendar, event, now).join) return;
  const claimed = await store.events.findOneAndUpdate(
    { _id: eventKey, bot: 'waiting', startAt: event.startAt },
    { $set: { bot: 'starting', claimedBy: deps.instanceId, claimedAt: now } },
  );
  if (!claimed) return;
  deps.metrics.lateness.observe(Math.max(0, now - (event.startAt - deps.leadMs)) / 1000);
  const { settings } = calendar;
  const attempt = claimed.attempts ?? 0;
  try {
    const reply = await call(
      deps.bus,
      routes.meetings.start,
      {
        url: event.meetingUrl,
        title: event.title,
        callbackUrl: settings.callbackUrl,
        project: settings.project,
        saveTranscript: settings.saveTranscript,
        signIn: settings.signIn,
        transcription: settings.transcription,
        ...(settings.language && { language: settings.language }),
        ...(settings.recording && { recording: settings.recording }),
        ...(event.passcode && { passcode: event.passcode }),
        caller: callerOf(calendar),
      },
      { timeoutMs: 30_000 },
    );
    await store.events.updateOne(
      { _id: eventKey },
      { $set: { bot: 'started', meetingId: reply.meetingId, error: null, retryAt: null } },
    );
    deps.metrics.bots.inc({ outcome: 'started' });
    deps.logger.info({ calendarId: calendar._id, meetingId: reply.meetingId }, 'calendar meeting bot started');
  } catch (err) {
    await refused(deps, eventKey, event.endAt, err, attempt);
  }
}

async function refused(deps: StarterDeps, eventKey: string, endAt: number, err: unknown, attempt: number) {
  const { store } = deps;
  if (err instanceof ServiceError && err.code === 'already_transcribed') {
    await store.events.updateOne({ _id: eventKey }, { $set: { bot: 'already_transcribed', error: null } });
    return deps.metrics.bots.inc({ outcome: 'already_transcribed' });
  }
  const retryable = !(err instanceof ServiceError) || err.retryable || err.status >= 500;
  const at = Date.now() + RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
  if (retryable && at < endAt) {
    const doc = await store.events.findOneAndUpdate(
      { _id: eventKey, bot: 'starting' },
      { $set: { bot: 'waiting', claimedBy: null, claimedAt: null, retryAt: at }, $inc: { attempts: 1 } },
    );
    if (doc) deps.retry(eventKey, at);
    return deps.metrics.bots.inc({ outcome: 'retried' });
  }
  const message = err instanceof ServiceError ? err.message : 'The bot could not be started';
  await store.events.updateOne({ _id: eventKey }, { $set: { bot: 'failed', error: message } });
  deps.metrics.bots.inc({ outcome: 'failed' });
  deps.logger.warn({ eventKey, code: (err as ServiceError).code }, 'calendar meeting bot could not start');
}
