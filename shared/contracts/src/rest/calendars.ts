/**
 * Calendars (docs/api/reference.md#calendars): ICS feeds, Google Calendar and Microsoft 365
 * calendars connected to an API key, whose meetings get a bot each with the calendar's settings.
 * A calendar's secrets (the feed address, the OAuth client secret and refresh token) go in and
 * never come out: no answer carries them.
 */
import { z } from 'zod';
import { isoTimestamp } from '../events.js';
import { platform, startMeetingRequest } from './meetings.js';

export const CALENDAR_ID = /^cal_[A-Za-z0-9_-]{16,64}$/;
export const CALENDAR_EVENT_ID = /^evt_[A-Za-z0-9_-]{16,64}$/;

export const calendarProvider = z.enum(['ics', 'google', 'microsoft'], {
  error: 'provider must be one of ics, google, microsoft',
});
export type CalendarProvider = z.infer<typeof calendarProvider>;
export const calendarStatus = z.enum(['syncing', 'ok', 'error', 'disconnected']);
export type CalendarStatus = z.infer<typeof calendarStatus>;

/** Which meetings get a bot without being asked for one by one. */
export const calendarJoinRule = z.enum(['accepted', 'all', 'none'], {
  error: 'join must be one of accepted, all, none',
});
export type CalendarJoinRule = z.infer<typeof calendarJoinRule>;

/** The bot settings every meeting of the calendar gets: the start's own fields and their rules. */
export const calendarBotSettings = startMeetingRequest
  .pick({
    callbackUrl: true,
    project: true,
    saveTranscript: true,
    signIn: true,
    language: true,
    recording: true,
    transcription: true,
  })
  .extend({
    join: calendarJoinRule
      .default('accepted')
      .describe(
        'Which meetings get a bot: "accepted" (default: those the owner organizes or accepted; for ICS feeds, every one not declined or cancelled), "all", or "none" (sync only; choose per event).',
      ),
  });
export type CalendarBotSettings = z.infer<typeof calendarBotSettings>;

const secretText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);

const credentialFields = {
  url: secretText('url', 2048).optional().describe('ics: the secret iCalendar address (https:// or webcal://).'),
  clientId: secretText('clientId', 512).optional().describe('google, microsoft: the OAuth client id.'),
  clientSecret: secretText('clientSecret', 1024).optional().describe('google, microsoft: the OAuth client secret.'),
  refreshToken: secretText('refreshToken', 4096)
    .optional()
    .describe("google, microsoft: the refresh token the calendar's owner granted (read-only calendar scope)."),
  calendarId: secretText('calendarId', 512).optional().describe('google: which calendar (default "primary").'),
  tenant: z
    .string({ error: 'tenant must be a string' })
    .regex(/^[A-Za-z0-9.-]{1,128}$/, 'tenant must be a tenant id or domain, or common / organizations / consumers')
    .optional()
    .describe('microsoft: the tenant (default "common").'),
};

const NEEDS: Record<CalendarProvider, readonly (keyof typeof credentialFields)[]> = {
  ics: ['url'],
  google: ['clientId', 'clientSecret', 'refreshToken'],
  microsoft: ['clientId', 'clientSecret', 'refreshToken'],
};
const ALLOWS: Record<CalendarProvider, readonly (keyof typeof credentialFields)[]> = {
  ics: ['url'],
  google: ['clientId', 'clientSecret', 'refreshToken', 'calendarId'],
  microsoft: ['clientId', 'clientSecret', 'refreshToken', 'tenant'],
};

export const connectCalendarRequest = calendarBotSettings
  .extend({
    provider: calendarProvider.describe('ics (a feed address), google or microsoft (OAuth refresh token).'),
    ...credentialFields,
  })
  .superRefine((value, ctx) => {
    for (const field of NEEDS[value.provider]) {
      if (value[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required for provider ${value.provider}` });
    }
    for (const field of Object.keys(credentialFields) as (keyof typeof credentialFields)[]) {
      if (value[field] !== undefined && !ALLOWS[value.provider].includes(field))
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} is not a field of provider ${value.provider}`,
        });
    }
  });
export type ConnectCalendarRequest = z.infer<typeof connectCalendarRequest>;

export const calendar = calendarBotSettings.extend({
  /** Null for a calendar connected from the web, whose meetings belong to no key. */
  callbackUrl: z.string().nullable(),
  id: z.string(),
  provider: calendarProvider,
  status: calendarStatus,
  lastSyncAt: isoTimestamp.nullable(),
  /** Why the last sync failed, as a sentence; null when it did not. */
  error: z.string().nullable(),
  /** google: the calendar read; microsoft: the tenant. Null for a feed. */
  calendarId: z.string().nullable(),
  tenant: z.string().nullable(),
  createdAt: isoTimestamp,
});
export type Calendar = z.infer<typeof calendar>;

export const calendarResponse = z.object({ calendar });
export const calendarsResponse = z.object({ calendars: z.array(calendar) });

const calendarIdField = z
  .string({ error: 'calendarId is required and must be a string' })
  .regex(CALENDAR_ID, 'calendarId must be a calendar id like cal_AbCdEf1234567890')
  .describe('The id connect_calendar returned, like cal_AbCdEf1234567890.');
const eventIdField = z
  .string({ error: 'eventId is required and must be a string' })
  .regex(CALENDAR_EVENT_ID, 'eventId must be an event id like evt_AbCdEf1234567890')
  .describe('An eventId from list_calendar_events.');

export const calendarRefRequest = z.strictObject({ calendarId: calendarIdField });
/** PUT .../events/{eventId}: the ids from the path, `join` from the body. */
export const calendarEventJoinRequest = z.strictObject({
  calendarId: calendarIdField,
  eventId: eventIdField,
  join: z
    .boolean({ error: 'join is required and must be a boolean' })
    .describe('true: a bot goes to this occurrence whatever the rule says; false: none goes.'),
});

/** Why a bot will go to an event, or why not. */
export const calendarEventReason = z.enum([
  /** The calendar's join rule takes it (or, with join false, leaves it: `none`). */
  'rule',
  /** The owner chose for this occurrence (PUT .../events/{eventId}). */
  'override',
  /** The calendar's owner declined it. */
  'declined',
  /** The event, or this occurrence, is cancelled. */
  'cancelled',
  /** join "accepted" and the owner neither organizes nor accepted it. */
  'not_accepted',
  /** It carries no Meet, Teams or Zoom link. */
  'no_meeting_link',
  /** Its bot has started: meetingId. */
  'started',
  /** A bot is in that meeting already (from another calendar, or started by hand). */
  'already_transcribed',
  /** Its bot could not start: the event's `error` says why. */
  'start_failed',
  /** It ended before its bot could start. */
  'ended',
]);
export type CalendarEventReason = z.infer<typeof calendarEventReason>;

export const calendarEvent = z.object({
  eventId: z.string(),
  title: z.string(),
  startAt: isoTimestamp,
  endAt: isoTimestamp,
  meetingUrl: z.string().nullable(),
  platform: platform.nullable(),
  join: z.boolean(),
  reason: calendarEventReason,
  meetingId: z.string().nullable(),
  /** Why its bot could not start (reason start_failed), else null. */
  error: z.string().nullable(),
});
export type CalendarEvent = z.infer<typeof calendarEvent>;
export const calendarEventsResponse = z.object({ calendarId: z.string(), events: z.array(calendarEvent) });
export const calendarEventResponse = z.object({ calendarId: z.string(), event: calendarEvent });
export const calendarDeletedResponse = z.object({ calendarId: z.string(), deleted: z.literal(true) });
