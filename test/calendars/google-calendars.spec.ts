/**
 * Google Calendar through the whole stack against a local stand-in of its API and token endpoint:
 * bots on time from conferenceData, moved and cancelled events followed by incremental syncs
 * (syncToken), a full read again on 410, an access token refused with 401 refreshed at once, a
 * refused refresh token (invalid_grant) as `disconnected` with a warning and a metric, and a 429
 * waited out as its Retry-After says.
 */
import { expect } from 'chai';
import type { GoogleEvent } from '../support/calendar-providers/google-calendar.js';
import { eventually, sleep } from '../support/wait.js';
import { calendarStackPerSuite, meetLink, soon, SYNC_MS } from './support.js';

const iso = (ms: number) => new Date(ms).toISOString();

function googleEvent(id: string, start: number, link: string, more: Partial<GoogleEvent> = {}): GoogleEvent {
  return {
    id,
    status: 'confirmed',
    summary: `Google ${id}`,
    start: { dateTime: iso(start) },
    end: { dateTime: iso(start + 30 * 60_000) },
    conferenceData: { entryPoints: [{ entryPointType: 'video', uri: link }] },
    organizer: { email: 'bob@example.com' },
    attendees: [
      { email: 'ada@example.com', self: true, responseStatus: 'accepted' },
      { email: 'bob@example.com', responseStatus: 'accepted' },
    ],
    ...more,
  };
}

describe('calendars: Google Calendar', function () {
  this.timeout(90_000);
  const w = calendarStackPerSuite();
  let n = 0;
  const connectGoogle = async (calendarId = `cal-${++n}@group.calendar.google.com`) => {
    const client = w.google.tokens.client();
    const calendar = await w.connect({ provider: 'google', ...client, calendarId, saveTranscript: false });
    return { calendar, client, calendarId };
  };

  it('sends bots on time to accepted meetings, follows a moved one and drops a cancelled one, never a declined one', async () => {
    const { calendarId } = { calendarId: `cal-${++n}@group.calendar.google.com` };
    const [onTime, moved, cancelled, declined, unanswered] = [
      meetLink(),
      meetLink(),
      meetLink(),
      meetLink(),
      meetLink(),
    ];
    const start = soon(6000);
    w.google.put(calendarId, googleEvent('on-time', start, onTime, { summary: 'Design review' }));
    w.google.put(calendarId, googleEvent('moved', start + 60_000, moved));
    w.google.put(calendarId, googleEvent('cancelled', start, cancelled));
    w.google.put(
      calendarId,
      googleEvent('declined', start, declined, {
        attendees: [{ email: 'ada@example.com', self: true, responseStatus: 'declined' }],
      }),
    );
    w.google.put(
      calendarId,
      googleEvent('unanswered', start, unanswered, {
        hangoutLink: unanswered,
        conferenceData: undefined,
        attendees: [{ email: 'ada@example.com', self: true, responseStatus: 'needsAction' }],
      }),
    );
    const client = w.google.tokens.client();
    const { id, calendarId: shown } = await w.connect({
      provider: 'google',
      ...client,
      calendarId,
      saveTranscript: false,
    });
    expect(shown).to.equal(calendarId);
    expect(JSON.stringify(await w.call('GET', `/calendars/${id}`)))
      .not.to.include(client.refreshToken)
      .and.not.to.include(client.clientSecret);
    await w.synced(id);
    expect((await w.events(id)).map((e: any) => [e.meetingUrl, e.join, e.reason])).to.have.deep.members([
      [onTime, true, 'rule'],
      [moved, true, 'rule'],
      [cancelled, true, 'rule'],
      [declined, false, 'declined'],
      [unanswered, false, 'not_accepted'],
    ]);
    const movedTo = soon(3 * SYNC_MS);
    w.google.put(calendarId, googleEvent('moved', movedTo, moved));
    w.google.cancel(calendarId, 'cancelled');

    const bot = await w.waitForStart(onTime);
    expect(bot.at).to.be.at.least(start - 50);
    const { body } = await w.call('GET', '/meetings/status');
    expect(body.meetings.map((m: any) => m.title)).to.include('Design review');
    expect((await w.waitForStart(moved)).at).to.be.at.least(movedTo - 50);
    await sleep(SYNC_MS);
    expect(w.startsFor(cancelled)).to.have.length(0);
    expect(w.startsFor(declined)).to.have.length(0);
    expect(w.startsFor(unanswered)).to.have.length(0);
    // After the first full read, the syncs asked only for changes.
    const mine = w.google.lists().filter((r) => r.path.includes(encodeURIComponent(calendarId)));
    expect(mine.some((r) => r.query.has('syncToken'))).to.equal(true);
    expect(mine.every((r) => r.query.get('singleEvents') === 'true')).to.equal(true);
  });

  it('reads the window in full again when its sync token answers 410', async () => {
    const { calendar, calendarId } = await connectGoogle();
    const link = meetLink();
    w.google.put(calendarId, googleEvent('later', Date.now() + 3_600_000, link));
    await eventually(async () => (await w.events(calendar.id)).length === 1, 'the event read', 20_000);
    w.google.invalidateSyncTokens();
    const relinked = meetLink();
    w.google.put(calendarId, googleEvent('later', Date.now() + 3_600_000, relinked));
    await eventually(
      async () => (await w.events(calendar.id))[0]?.meetingUrl === relinked,
      'the change after a 410',
      20_000,
    );
    const mine = w.google.lists().filter((r) => r.path.includes(encodeURIComponent(calendarId)));
    const gone = mine.findIndex(
      (r, i) => i > 0 && r.query.has('syncToken') && mine[i + 1] && !mine[i + 1].query.has('syncToken'),
    );
    expect(gone).to.be.greaterThan(-1);
    expect((await w.call('GET', `/calendars/${calendar.id}`)).body.calendar).to.include({ status: 'ok', error: null });
  });

  it('refreshes an access token refused with 401 at once, within the same sync', async () => {
    const { calendar, calendarId } = await connectGoogle();
    w.google.put(calendarId, googleEvent('x', Date.now() + 3_600_000, meetLink()));
    await w.synced(calendar.id);
    const grants = w.google.tokens.grants;
    w.google.tokens.expireAccessTokens();
    const link = meetLink();
    w.google.put(calendarId, googleEvent('y', Date.now() + 3_600_000, link));
    await eventually(
      async () => (await w.events(calendar.id)).some((e: any) => e.meetingUrl === link),
      'the next sync',
      20_000,
    );
    expect(w.google.tokens.grants).to.be.greaterThan(grants);
    expect((await w.call('GET', `/calendars/${calendar.id}`)).body.calendar).to.include({ status: 'ok', error: null });
  });

  it('turns a refused refresh token into `disconnected` with a warning and a metric, and keeps the scheduled bots', async () => {
    const { calendar, calendarId, client } = await connectGoogle();
    const link = meetLink();
    const start = soon(4 * SYNC_MS);
    w.google.put(calendarId, googleEvent('kept', start, link));
    await w.synced(calendar.id);
    w.google.tokens.revoke(client.refreshToken);
    const disconnected = await eventually(
      async () => {
        const { body } = await w.call('GET', `/calendars/${calendar.id}`);
        return body.calendar.status === 'disconnected' && body.calendar;
      },
      'disconnected',
      20_000,
    );
    expect(disconnected.error).to.match(/Google refused the refresh token \(invalid_grant\)/);
    expect(
      w.t
        .warnings()
        .some(
          (l) =>
            l.msg === 'calendar disconnected: the provider refused its refresh token' && l.calendarId === calendar.id,
        ),
    ).to.equal(true);
    const metrics = await (await fetch(`${w.t.baseUrl}/metrics`)).text();
    expect(metrics).to.match(/^calendar_disconnected_total\{provider="google"[^}]*\} [1-9]/m);
    expect(w.t.logText()).not.to.include(client.refreshToken);
    // The bot already scheduled still goes.
    expect((await w.waitForStart(link)).at).to.be.at.least(start - 50);
  });

  it('waits out a 429 as long as its Retry-After says, showing the error meanwhile, never a 5xx', async () => {
    const { calendar, calendarId } = await connectGoogle();
    w.google.put(calendarId, googleEvent('x', Date.now() + 3_600_000, meetLink()));
    await w.synced(calendar.id);
    w.google.tokens.expireAccessTokens(); // the throttled request comes after a refresh
    w.google.faults.push(
      encodeURIComponent(calendarId),
      429,
      { 'Retry-After': '5' },
      { error: { code: 429, message: 'Rate Limit Exceeded' } },
    );
    const failed = await eventually(
      async () => {
        const answer = await w.call('GET', `/calendars/${calendar.id}`);
        expect(answer.status).to.equal(200);
        return answer.body.calendar.status === 'error' && answer.body.calendar;
      },
      'the 429 shown',
      20_000,
    );
    expect(failed.error).to.equal('Google Calendar answered HTTP 429; retrying later');
    const mine = () => w.google.lists().filter((r) => r.path.includes(encodeURIComponent(calendarId)));
    await eventually(
      async () => (await w.call('GET', `/calendars/${calendar.id}`)).body.calendar.status === 'ok',
      'recovered',
      20_000,
    );
    const throttled = mine().findIndex((r) => r.status === 429);
    expect(mine()[throttled + 1].at - mine()[throttled].at).to.be.at.least(4900);
  });
});
