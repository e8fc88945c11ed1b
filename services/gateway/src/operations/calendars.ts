/**
 * Calendars, declared in the contracts (capabilities/calendars.ts) and answered by task-scheduler
 * on their routes; named here for the web pages, which call them as REST and MCP do.
 */
import {
  disconnectCalendar as disconnectCalendarCapability,
  getCalendar as getCalendarCapability,
  listCalendarEvents as listCalendarEventsCapability,
  listCalendars as listCalendarsCapability,
  setCalendarEventJoin as setCalendarEventJoinCapability,
} from '@notetaker/contracts';
import { forwarded } from './operation.js';

export const listCalendars = forwarded(listCalendarsCapability);
export const getCalendar = forwarded(getCalendarCapability);
export const disconnectCalendar = forwarded(disconnectCalendarCapability);
export const listCalendarEvents = forwarded(listCalendarEventsCapability);
export const setCalendarEventJoin = forwarded(setCalendarEventJoinCapability);
