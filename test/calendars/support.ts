/**
 * The whole stack for the calendar tests: every service real, with the local stand-ins of an ICS
 * feed host, Google Calendar and Microsoft Graph (HTTPS on 127.0.0.1, trusted as an operator's CA
 * would be) and a callback receiver. The bots' meetings are the scripted platform's (no browser):
 * what is tested is when which bot starts, as which meeting, and what the API says meanwhile.
 * One per describe block (`calendarStackPerSuite`); each case uses calendars and meeting codes of its own.
 */
import { randomInt } from 'node:crypto';
import type { JoinTarget } from '../../services/meeting-session/src/drivers/driver.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { startGoogleCalendarServer, type GoogleCalendarServer } from '../support/calendar-providers/google-calendar.js';
import { startIcsFeedServer, type IcsFeedServer } from '../support/calendar-providers/ics-feed.js';
import { startMicrosoftGraphServer, type MicrosoftGraphServer } from '../support/calendar-providers/microsoft-graph.js';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { eventually } from '../support/wait.js';

export const SYNC_MS = 2000;

/** A start time `ms` from now, in whole seconds (iCalendar's precision). */
export const soon = (ms: number) => Math.ceil((Date.now() + ms) / 1000) * 1000;

export interface BotStart {
  target: JoinTarget;
  at: number;
}

export interface CalendarWorld {
  t: TestStack;
  ics: IcsFeedServer;
  google: GoogleCalendarServer;
  graph: MicrosoftGraphServer;
  rx: CallbackReceiver;
  apiKey: string;
  /** Every bot start the scripted platform saw, in order. */
  starts: BotStart[];
  drivers: ScriptedDriverFactory;
  call(method: string, path: string, json?: unknown, apiKey?: string): Promise<{ status: number; body: any }>;
  connect(body: Record<string, unknown>, apiKey?: string): Promise<any>;
  events(calendarId: string, apiKey?: string): Promise<any[]>;
  /** Waits until the calendar's first sync is done (status no longer `syncing`). */
  synced(calendarId: string, apiKey?: string): Promise<any>;
  /** The bot starts for a meeting link so far. */
  startsFor(meetingUrl: string): BotStart[];
  waitForStart(meetingUrl: string, timeoutMs?: number): Promise<BotStart>;
}

/** A fresh Google Meet link: a code no other case uses. */
export function meetLink(): string {
  const letters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + randomInt(26))).join('');
  return `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
}

export function calendarStackPerSuite(env: Record<string, string> = {}): CalendarWorld {
  const world = {} as CalendarWorld;
  before(async function () {
    this.timeout(60_000);
    const [ics, google, graph, rx] = await Promise.all([
      startIcsFeedServer(),
      startGoogleCalendarServer(),
      startMicrosoftGraphServer(),
      startCallbackReceiver(),
    ]);
    const starts: BotStart[] = [];
    const drivers = scriptedDriverFactory();
    const recording: ScriptedDriverFactory = {
      ...drivers,
      create(target) {
        const driver = drivers.create(target);
        return {
          ...driver,
          start(listener) {
            starts.push({ target, at: Date.now() });
            return driver.start(listener);
          },
        };
      },
    };
    const t = await startTestStack(
      {
        CALENDAR_SYNC_INTERVAL_MS: String(SYNC_MS),
        CALENDAR_JOIN_LEAD_MS: '0',
        ...google.env,
        ...graph.env,
        ...env,
      },
      { driverFactory: recording },
    );
    const { apiKey } = await t.createToken();
    const call = async (method: string, path: string, json?: unknown, key = apiKey) => {
      const response = await t.api(path, { method, apiKey: key, ...(json !== undefined && { json }) });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    };
    Object.assign(world, {
      t,
      ics,
      google,
      graph,
      rx,
      apiKey,
      starts,
      drivers,
      call,
      async connect(body: Record<string, unknown>, key = apiKey) {
        const { status, body: answer } = await call('POST', '/calendars', { callbackUrl: rx.url, ...body }, key);
        if (status !== 201) throw new Error(`connect answered ${status}: ${JSON.stringify(answer)}`);
        return answer.calendar;
      },
      async events(calendarId: string, key = apiKey) {
        const { status, body } = await call('GET', `/calendars/${calendarId}/events`, undefined, key);
        if (status !== 200) throw new Error(`events answered ${status}: ${JSON.stringify(body)}`);
        return body.events;
      },
      synced: (calendarId: string, key = apiKey) =>
        eventually(
          async () => {
            const { body } = await call('GET', `/calendars/${calendarId}`, undefined, key);
            return body.calendar.status !== 'syncing' && body.calendar.lastSyncAt !== null && body.calendar;
          },
          'the first sync',
          20_000,
        ),
      startsFor: (meetingUrl: string) => starts.filter((s) => s.target.url.startsWith(meetingUrl)),
      waitForStart: (meetingUrl: string, timeoutMs = 30_000) =>
        eventually(() => world.startsFor(meetingUrl)[0], `a bot for ${meetingUrl}`, timeoutMs),
    });
  });
  after(async () => {
    await world.t?.stop();
    await Promise.all([world.ics?.close(), world.google?.close(), world.graph?.close(), world.rx?.close()]);
  });
  return world;
}
