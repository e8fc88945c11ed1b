/** The calendars' own variables (docs/services/task-scheduler.md#calendars). */
import { z } from 'zod';
import { envBool, envInt } from '@notetaker/config';

const httpsBase = (fallback: string) =>
  z
    .string()
    .url('must be an http(s) URL')
    .default(fallback)
    .or(z.literal('').transform(() => fallback))
    .transform((value) => value.replace(/\/+$/, ''));

const list = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const calendarEnvSchema = z.object({
  /** How often each connected calendar is read again. */
  CALENDAR_SYNC_INTERVAL_MS: envInt(5 * 60_000, 500, 24 * 3_600_000),
  /** How long before a meeting's start its bot is sent. */
  CALENDAR_JOIN_LEAD_MS: envInt(60_000, 0, 3_600_000),
  /** Calendars read at once by the instance that holds the scheduler lease. */
  CALENDAR_SYNC_CONCURRENCY: envInt(8, 1, 256),
  GOOGLE_OAUTH_TOKEN_URL: httpsBase('https://oauth2.googleapis.com/token'),
  GOOGLE_CALENDAR_API_URL: httpsBase('https://www.googleapis.com/calendar/v3'),
  MICROSOFT_LOGIN_URL: httpsBase('https://login.microsoftonline.com'),
  MICROSOFT_GRAPH_URL: httpsBase('https://graph.microsoft.com/v1.0'),
  // A feed address is an outbound address a user gives: the callbacks' policy (webhook-emitter).
  CALLBACK_ALLOW_PRIVATE: envBool(true),
  CALLBACK_ALLOWED_HOSTS: list,
});
export type CalendarEnv = z.infer<typeof calendarEnvSchema>;
