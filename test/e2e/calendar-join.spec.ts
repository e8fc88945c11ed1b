/**
 * Calendars as a customer meets them, with real Chromium in the simulated platforms: a meeting
 * on an ICS feed, on Google Calendar and on Microsoft 365 each gets its bot into the call at the
 * meeting's start, as a meeting named after the event whose events reach the calendar's callback.
 * (When bots start, move and stay away is tested without a browser in test/calendars.)
 */
import { expect } from 'chai';
import { startGoogleCalendarServer, type GoogleCalendarServer } from '../support/calendar-providers/google-calendar.js';
import {
  icsCalendar,
  icsMeeting,
  startIcsFeedServer,
  type IcsFeedServer,
} from '../support/calendar-providers/ics-feed.js';
import {
  graphTime,
  startMicrosoftGraphServer,
  type MicrosoftGraphServer,
} from '../support/calendar-providers/microsoft-graph.js';
import { eventually } from '../support/wait.js';
import { useWorld, type World } from './support/world.js';

describe('e2e: calendar meetings joined by their bots', function () {
  this.timeout(120_000);
  const env: Record<string, string> = { CALENDAR_SYNC_INTERVAL_MS: '2000', CALENDAR_JOIN_LEAD_MS: '0' };
  let ics: IcsFeedServer;
  let google: GoogleCalendarServer;
  let graph: MicrosoftGraphServer;
  before(async () => {
    [ics, google, graph] = await Promise.all([
      startIcsFeedServer(),
      startGoogleCalendarServer(),
      startMicrosoftGraphServer(),
    ]);
    Object.assign(env, google.env, graph.env);
  });
  after(() => Promise.all([ics?.close(), google?.close(), graph?.close()]));
  const world = useWorld(env);

  /** Connects the calendar and follows its one meeting's bot into the simulated call. */
  async function joinsOnTime(w: World, body: Record<string, unknown>, title: string, start: number, nativeId: string) {
    const answer = await w.t.api('/calendars', {
      method: 'POST',
      apiKey: w.token.apiKey,
      json: { callbackUrl: `${w.rx.url}/hooks/notetaker`, saveTranscript: false, ...body },
    });
    expect(answer.status).to.equal(201);
    const { calendar } = await answer.json();
    const sim = w.sim.meeting(nativeId, { lobby: false });
    const bot = await sim.waitForBot((b) => b.screen === 'in_call', Math.max(0, start - Date.now()) + 60_000);
    expect(bot.name).to.equal('Notetaker');
    expect(Date.now()).to.be.at.least(start - 50);
    const [event] = await eventually(async () => {
      const events = (await (await w.get(`/calendars/${calendar.id}/events`)).json()).events;
      return events[0]?.meetingId && events;
    }, 'the meetingId on the event');
    const status = await w.waitForStatus(event.meetingId, 'live');
    expect(status.meetingId).to.equal(event.meetingId);
    const live = (await (await w.get('/meetings/status')).json()).meetings.find(
      (m: any) => m.meetingId === event.meetingId,
    );
    expect(live).to.include({ title });
  }

  it('an ICS feed’s Google Meet meeting', async () => {
    const w = world();
    const code = w.newNativeId('google_meet');
    const start = Math.ceil((Date.now() + 8000) / 1000) * 1000;
    const url = ics.feed(
      icsCalendar([icsMeeting('e2e-ics', start, w.sim.url('google_meet', code), ['SUMMARY:Feed stand-up'])]),
    );
    await joinsOnTime(w, { provider: 'ics', url }, 'Feed stand-up', start, code);
  });

  it('a Google Calendar event’s Meet and a Microsoft 365 event’s Teams meeting', async () => {
    const w = world();
    const code = w.newNativeId('google_meet');
    const thread = w.newNativeId('teams');
    const start = Date.now() + 10_000;
    const end = start + 30 * 60_000;
    const google1 = google.tokens.client();
    google.put('primary', {
      id: 'e2e-google',
      summary: 'Google design review',
      start: { dateTime: new Date(start).toISOString() },
      end: { dateTime: new Date(end).toISOString() },
      hangoutLink: w.sim.url('google_meet', code),
      organizer: { email: 'ada@example.com', self: true },
    });
    const graph1 = graph.tokens.client();
    graph.put({
      id: 'e2e-graph',
      subject: 'Teams budget',
      start: graphTime(start),
      end: graphTime(end),
      isOrganizer: true,
      responseStatus: { response: 'organizer' },
      onlineMeeting: { joinUrl: w.sim.url('teams', thread) },
    });
    await Promise.all([
      joinsOnTime(w, { provider: 'google', ...google1 }, 'Google design review', start, code),
      joinsOnTime(w, { provider: 'microsoft', ...graph1 }, 'Teams budget', start, thread),
    ]);
  });
});
