/**
 * The capabilities of calendars, answered by task-scheduler on `routes.calendars`. A calendar
 * belongs to the key that connected it, exactly as a meeting does: another key's is the one 404.
 */
import { callbackUrl } from '../rest.js';
import { count, defineCapability, DESTRUCTIVE, IDEMPOTENT_WRITE, READ, WRITE } from '../capability.js';
import {
  calendarDeletedResponse,
  calendarEventJoinRequest,
  calendarEventResponse,
  calendarEventsResponse,
  calendarRefRequest,
  calendarResponse,
  calendarsResponse,
  connectCalendarRequest,
  type CalendarEvent,
} from '../rest.js';
import { BODY_TOO_LARGE, noInput } from './meetings.js';

export const CALENDAR_NOT_FOUND = 'Not found: no such calendar, or another key’s';
export const CALENDAR_EVENT_NOT_FOUND = 'Not found: no such event in this calendar’s next 7 days';

const eventLine = (e: CalendarEvent) =>
  `\n- ${e.eventId} ${e.startAt} "${e.title}" ${e.platform ?? 'no link'}: ${e.join ? 'bot goes' : 'no bot'} (${e.reason})` +
  (e.meetingId ? ` ${e.meetingId}` : '');

export const connectCalendar = defineCapability({
  name: 'connect_calendar',
  // The web's calendars belong to no key: their meetings have no callback.
  bus: { service: 'calendars', verb: 'connect', scope: 'caller', fields: { callbackUrl: callbackUrl.nullable() } },
  input: connectCalendarRequest,
  output: calendarResponse,
  needs: 'knowledge:write',
  errors: { 403: 'saveTranscript without the knowledge:write capability', 413: BODY_TOO_LARGE },
  rest: {
    method: 'post',
    path: '/calendars',
    status: 201,
    summary: 'Connect an ICS feed, a Google Calendar or a Microsoft 365 calendar: its meetings get a bot each',
    description: 'Connected; the first sync is under way',
  },
  tool: {
    title: 'Connect a calendar',
    description:
      'Connects a calendar to this API key (an ICS feed address, or a Google / Microsoft OAuth client and refresh ' +
      'token) with the bot settings its meetings get. Bots then join its meetings on time, follow moved ones and ' +
      'skip cancelled or declined ones.',
    annotations: { ...WRITE, openWorldHint: true },
    text: (b) => `Calendar ${b.calendar.id} (${b.calendar.provider}) is ${b.calendar.status}.`,
  },
});

export const listCalendars = defineCapability({
  name: 'list_calendars',
  bus: { service: 'calendars', verb: 'list', scope: 'caller' },
  input: noInput,
  output: calendarsResponse,
  rest: { method: 'get', path: '/calendars', summary: 'The calendars this key connected', description: 'Calendars' },
  tool: {
    title: 'List connected calendars',
    description: 'The calendars this API key connected, with their sync status.',
    annotations: READ,
    text: (b) =>
      `${count(b.calendars.length, 'calendar')}` +
      b.calendars.map((c) => `\n- ${c.id} ${c.provider} ${c.status}${c.error ? `: ${c.error}` : ''}`).join(''),
  },
});

export const getCalendar = defineCapability({
  name: 'get_calendar',
  bus: { service: 'calendars', verb: 'get', scope: 'caller' },
  input: calendarRefRequest,
  output: calendarResponse,
  errors: { 404: CALENDAR_NOT_FOUND },
  rest: {
    method: 'get',
    path: '/calendars/:calendarId',
    summary: 'One connected calendar',
    description: 'The calendar',
  },
  tool: {
    title: 'Read a connected calendar',
    description: 'A calendar this API key connected: its status, last sync, error and bot settings.',
    annotations: READ,
    text: (b) =>
      `Calendar ${b.calendar.id} (${b.calendar.provider}) is ${b.calendar.status}; last sync ${b.calendar.lastSyncAt ?? 'not yet'}` +
      (b.calendar.error ? `; ${b.calendar.error}` : '.'),
  },
});

export const disconnectCalendar = defineCapability({
  name: 'disconnect_calendar',
  bus: { service: 'calendars', verb: 'delete', scope: 'caller' },
  input: calendarRefRequest,
  output: calendarDeletedResponse,
  errors: { 404: CALENDAR_NOT_FOUND },
  rest: {
    method: 'delete',
    path: '/calendars/:calendarId',
    summary: 'Disconnect a calendar: its bots not yet started are cancelled, live ones go on',
    description: 'Disconnected',
  },
  tool: {
    title: 'Disconnect a calendar',
    description:
      'Disconnects a calendar and forgets its credentials; bots it scheduled that have not started yet are cancelled.',
    annotations: DESTRUCTIVE,
    text: (b) => `Calendar ${b.calendarId} is disconnected.`,
  },
});

export const listCalendarEvents = defineCapability({
  name: 'list_calendar_events',
  bus: { service: 'calendars', verb: 'events', scope: 'caller' },
  input: calendarRefRequest,
  output: calendarEventsResponse,
  errors: { 404: CALENDAR_NOT_FOUND },
  rest: {
    method: 'get',
    path: '/calendars/:calendarId/events',
    summary: "The next 7 days' meetings of a calendar, whether a bot goes to each and why",
    description: 'Events by start time',
  },
  tool: {
    title: "List a calendar's meetings",
    description:
      "The next 7 days' events of a connected calendar that carry a meeting link, each with whether a bot will go " +
      '(join), why (reason) and, once it started, its meetingId.',
    annotations: READ,
    text: (b) => `${count(b.events.length, 'meeting')} in ${b.calendarId}${b.events.map(eventLine).join('')}`,
  },
});

export const setCalendarEventJoin = defineCapability({
  name: 'set_calendar_event_join',
  bus: { service: 'calendars', verb: 'event-join', scope: 'caller' },
  input: calendarEventJoinRequest,
  output: calendarEventResponse,
  errors: { 404: `${CALENDAR_NOT_FOUND}; or ${CALENDAR_EVENT_NOT_FOUND}`, 413: BODY_TOO_LARGE },
  rest: {
    method: 'put',
    path: '/calendars/:calendarId/events/:eventId',
    summary: 'Send a bot to one occurrence, or keep it away, whatever the join rule says',
    description: 'The event as it is now',
  },
  tool: {
    title: 'Choose whether a bot joins one calendar meeting',
    description: 'Overrides the calendar’s join rule for one occurrence: join true sends a bot, false keeps it away.',
    annotations: IDEMPOTENT_WRITE,
    text: (b) => `${b.calendarId}:${eventLine(b.event)}`,
  },
});

export const CALENDAR_CAPABILITIES = [
  connectCalendar,
  listCalendars,
  getCalendar,
  disconnectCalendar,
  listCalendarEvents,
  setCalendarEventJoin,
] as const;
