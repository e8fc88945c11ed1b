/**
 * ICS feeds through the whole stack: a bot goes to each meeting at its start with the calendar's
 * settings and the event's title, follows a moved meeting, never goes to a cancelled or declined
 * one, takes a recurring series with its exceptions, and one meeting gets one bot however many
 * calendars hold it (or whoever started it by hand). A calendar is its key's alone.
 */
import { expect } from 'chai';
import { icsCalendar, icsMeeting } from '../support/calendar-providers/ics-feed.js';
import { eventually, sleep } from '../support/wait.js';
import { calendarStackPerSuite, meetLink, soon, SYNC_MS } from './support.js';

describe('calendars: ICS feeds', function () {
  this.timeout(90_000);
  const w = calendarStackPerSuite();
  let n = 0;
  const uid = () => `ev-${++n}@tests.example.com`;

  it('sends a bot at the start of a feed’s meeting, as the key’s meeting with the calendar’s settings and the title', async () => {
    const link = meetLink();
    const start = soon(6000);
    const url = w.ics.feed(icsCalendar([icsMeeting(uid(), start, link, ['SUMMARY:Quarterly planning'])]));
    const connected = await w.connect({ provider: 'ics', url, project: 'planning', saveTranscript: false });
    expect(connected).to.include({ provider: 'ics', status: 'syncing', project: 'planning', join: 'accepted' });
    expect(JSON.stringify(connected)).not.to.include(new URL(url).pathname);
    const calendar = await w.synced(connected.id);
    expect(calendar).to.include({ status: 'ok', error: null });
    const [event] = await w.events(connected.id);
    expect(event).to.include({
      title: 'Quarterly planning',
      meetingUrl: link,
      platform: 'google_meet',
      join: true,
      reason: 'rule',
      meetingId: null,
    });

    const bot = await w.waitForStart(link);
    expect(bot.at).to.be.at.least(start - 50);
    const { body } = await w.call('GET', '/meetings/status');
    const meeting = body.meetings.find((m: any) => m.title === 'Quarterly planning');
    expect(meeting).to.include({ project: 'planning', platform: 'google_meet' });
    await eventually(
      async () => (await w.events(connected.id))[0].meetingId === meeting.meetingId,
      'the meetingId shown',
    );
    expect((await w.events(connected.id))[0]).to.include({ join: true, reason: 'started' });
    // The feed's secret address is in no log line.
    expect(w.t.logText()).not.to.include(new URL(url).pathname);
  });

  it('moves the bot with a moved meeting, and keeps it away from a cancelled or declined one', async () => {
    const moved = meetLink();
    const cancelled = meetLink();
    const declined = meetLink();
    const owner = 'ada@example.com';
    const first = soon(5000);
    const ids = { moved: uid(), cancelled: uid(), declined: uid() };
    const feed = (movedTo: number, cancel: boolean) =>
      icsCalendar(
        [
          icsMeeting(ids.moved, movedTo, moved),
          icsMeeting(ids.cancelled, first, cancelled, cancel ? ['STATUS:CANCELLED'] : []),
          icsMeeting(ids.declined, first, declined, [
            `ORGANIZER:mailto:bob@example.com`,
            `ATTENDEE;PARTSTAT=DECLINED:mailto:${owner}`,
          ]),
        ],
        { name: owner },
      );
    const url = w.ics.feed(feed(first + 60_000, false));
    const { id } = await w.connect({ provider: 'ics', url, saveTranscript: false });
    await w.synced(id);
    expect((await w.events(id)).map((e: any) => [e.meetingUrl, e.join, e.reason])).to.have.deep.members([
      [moved, true, 'rule'],
      [cancelled, true, 'rule'],
      [declined, false, 'declined'],
    ]);
    // The meeting moves 55 s earlier and the other one is cancelled: the next sync follows.
    const newStart = soon(3 * SYNC_MS);
    w.ics.set(url, feed(newStart, true));
    const bot = await w.waitForStart(moved);
    expect(bot.at).to.be.at.least(newStart - 50);
    await sleep(Math.max(0, first + 2 * SYNC_MS - Date.now()));
    expect(w.startsFor(cancelled)).to.have.length(0);
    expect(w.startsFor(declined)).to.have.length(0);
    expect((await w.events(id)).find((e: any) => e.meetingUrl === cancelled)).to.include({
      join: false,
      reason: 'cancelled',
    });
  });

  it('takes a recurring series with a moved and a cancelled occurrence: the bot goes at the moved time', async () => {
    const link = meetLink();
    const series = uid();
    const day = 86_400_000;
    // Daily at an hour from now; today's occurrence moved to a few seconds from now, tomorrow's cancelled.
    const base = soon(3_600_000);
    const stamp = (ms: number) =>
      new Date(ms)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, '');
    const movedTo = soon(6000);
    const text = icsCalendar([
      [
        ...icsMeeting(series, base, link, ['RRULE:FREQ=DAILY;COUNT=5', 'SUMMARY:Stand-up']).filter(
          (l) => !l.startsWith('SUMMARY:Meeting'),
        ),
      ],
      [
        ...icsMeeting(series, movedTo, link, [`RECURRENCE-ID:${stamp(base)}`, 'SUMMARY:Stand-up (early)']).filter(
          (l) => !l.startsWith('SUMMARY:Meeting'),
        ),
      ],
      [
        ...icsMeeting(series, base + day, link, [
          `RECURRENCE-ID:${stamp(base + day)}`,
          'STATUS:CANCELLED',
          'SUMMARY:Stand-up',
        ]),
      ],
    ]);
    const { id } = await w.connect({ provider: 'ics', url: w.ics.feed(text), saveTranscript: false });
    await w.synced(id);
    const events = await w.events(id);
    expect(events.map((e: any) => [e.title, e.startAt, e.reason])).to.deep.equal([
      ['Stand-up (early)', new Date(movedTo).toISOString(), 'rule'],
      ['Stand-up', new Date(base + day).toISOString(), 'cancelled'],
      ['Stand-up', new Date(base + 2 * day).toISOString(), 'rule'],
      ['Stand-up', new Date(base + 3 * day).toISOString(), 'rule'],
      ['Stand-up', new Date(base + 4 * day).toISOString(), 'rule'],
    ]);
    const bot = await w.waitForStart(link);
    expect(bot.at).to.be.at.least(movedTo - 50);
    expect(w.startsFor(link)).to.have.length(1);
  });

  it('gives one meeting on two calendars, twice in one feed, or started by hand as well, one bot', async () => {
    const shared = meetLink();
    const byHand = meetLink();
    const start = soon(5000);
    const a = await w.connect({
      provider: 'ics',
      saveTranscript: false,
      url: w.ics.feed(
        icsCalendar([
          icsMeeting(uid(), start, shared),
          icsMeeting(uid(), start, shared),
          icsMeeting(uid(), start, byHand),
        ]),
      ),
    });
    const b = await w.connect({
      provider: 'ics',
      saveTranscript: false,
      url: w.ics.feed(icsCalendar([icsMeeting(uid(), start, shared)])),
    });
    await Promise.all([w.synced(a.id), w.synced(b.id)]);
    const manual = await w.call('POST', '/meetings/start', {
      url: byHand,
      callbackUrl: w.rx.url,
      saveTranscript: false,
    });
    expect(manual.status).to.equal(201);

    await w.waitForStart(shared);
    await sleep(2 * SYNC_MS);
    expect(w.startsFor(shared)).to.have.length(1);
    expect(w.startsFor(byHand)).to.have.length(1);
    const reasons = [...(await w.events(a.id)), ...(await w.events(b.id))].map((e: any) => [e.meetingUrl, e.reason]);
    expect(reasons).to.have.deep.members([
      [shared, 'started'],
      [shared, 'already_transcribed'],
      [shared, 'already_transcribed'],
      [byHand, 'already_transcribed'],
    ]);
  });

  it('lets the owner send a bot where the rule sends none, keep one away, and disconnect (bots not started go with it)', async () => {
    const chosen = meetLink();
    const kept = meetLink();
    const dropped = meetLink();
    const start = soon(8000);
    const none = await w.connect({
      provider: 'ics',
      join: 'none',
      saveTranscript: false,
      url: w.ics.feed(icsCalendar([icsMeeting(uid(), start, chosen)])),
    });
    const all = await w.connect({
      provider: 'ics',
      join: 'all',
      saveTranscript: false,
      url: w.ics.feed(icsCalendar([icsMeeting(uid(), start, kept), icsMeeting(uid(), start, dropped)])),
    });
    const other = await w.connect({
      provider: 'ics',
      saveTranscript: false,
      url: w.ics.feed(icsCalendar([icsMeeting(uid(), start, meetLink())])),
    });
    await Promise.all([w.synced(none.id), w.synced(all.id), w.synced(other.id)]);
    const [toChoose] = await w.events(none.id);
    expect(toChoose).to.include({ join: false, reason: 'rule' });
    const chose = await w.call('PUT', `/calendars/${none.id}/events/${toChoose.eventId}`, { join: true });
    expect(chose.status).to.equal(200);
    expect(chose.body.event).to.include({ join: true, reason: 'override' });
    const keptAway = (await w.events(all.id)).find((e: any) => e.meetingUrl === kept);
    expect(
      (await w.call('PUT', `/calendars/${all.id}/events/${keptAway.eventId}`, { join: false })).body.event,
    ).to.include({
      join: false,
      reason: 'override',
    });
    const bad = await w.call('PUT', `/calendars/${all.id}/events/${keptAway.eventId}`, { join: 'yes' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/join/);
    const removed = await w.call('DELETE', `/calendars/${other.id}`);
    expect(removed.body).to.deep.equal({ calendarId: other.id, deleted: true });

    await w.waitForStart(chosen);
    await w.waitForStart(dropped);
    await sleep(2 * SYNC_MS);
    expect(w.startsFor(kept)).to.have.length(0);
    expect((await w.call('GET', `/calendars/${other.id}`)).status).to.equal(404);
  });

  it('shows another key nothing: its list is empty and every calendar of this key is 404 to it', async () => {
    const { id } = await w.connect({
      provider: 'ics',
      saveTranscript: false,
      url: w.ics.feed(icsCalendar([icsMeeting(uid(), soon(3_600_000), meetLink())])),
    });
    await w.synced(id);
    const { apiKey: other } = await w.t.createToken();
    expect((await w.call('GET', '/calendars', undefined, other)).body).to.deep.equal({ calendars: [] });
    for (const [method, path] of [
      ['GET', `/calendars/${id}`],
      ['GET', `/calendars/${id}/events`],
      ['DELETE', `/calendars/${id}`],
    ] as const) {
      const answer = await w.call(method, path, undefined, other);
      expect(answer.status, `${method} ${path}`).to.equal(404);
      expect(answer.body.error).to.equal('Not found: no such calendar, or another key’s');
    }
    const [event] = await w.events(id);
    expect((await w.call('PUT', `/calendars/${id}/events/${event.eventId}`, { join: false }, other)).status).to.equal(
      404,
    );
    expect((await w.call('GET', `/calendars/${id}`)).status).to.equal(200);
  });

  it('refuses a connect that names a wrong field, a link-local or metadata feed address, or saves without knowledge:write', async () => {
    const ask = (body: Record<string, unknown>, key?: string) =>
      w.call('POST', '/calendars', { callbackUrl: w.rx.url, ...body }, key);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ provider: 'ics' }, /url is required for provider ics/],
      [{ provider: 'ics', url: 'http://example.com/a.ics' }, /url must be an https:\/\/ or webcal:\/\//],
      [{ provider: 'ics', url: 'https://169.254.169.254/latest/meta-data' }, /url points to a refused address/],
      [{ provider: 'ics', url: 'webcal://[fe80::1]/a.ics' }, /url points to a refused address/],
      [{ provider: 'google', clientId: 'a', clientSecret: 'b' }, /refreshToken is required for provider google/],
      [{ provider: 'ics', url: 'https://example.com/a.ics', tenant: 'x' }, /tenant is not a field of provider ics/],
      [{ provider: 'outlook' }, /provider must be one of ics, google, microsoft/],
      [
        { provider: 'ics', url: 'https://example.com/a.ics', join: 'sometimes' },
        /join must be one of accepted, all, none/,
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await ask(body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error).to.match(message);
    }
    const { apiKey: reader } = await w.t.createToken([]);
    const forbidden = await ask({ provider: 'ics', url: 'https://example.com/a.ics' }, reader);
    expect(forbidden.status).to.equal(403);
    expect(
      (await ask({ provider: 'ics', url: 'https://example.com/a.ics', saveTranscript: false }, reader)).status,
    ).to.equal(201);
  });
});
