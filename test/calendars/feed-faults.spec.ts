/**
 * What a feed's faults do to a connected calendar, through the whole stack: unreachable, not
 * iCalendar, over 5 MB, or a 503 with Retry-After each show as `status: "error"` with a sentence
 * (never a 5xx, never the address), are retried, and clear once the feed is right again; ETags
 * make an unchanged feed cost a 304. With CALLBACK_ALLOW_PRIVATE=false a loopback feed is refused.
 */
import { expect } from 'chai';
import { icsCalendar, icsMeeting } from '../support/calendar-providers/ics-feed.js';
import { startTestStack } from '../support/stack.js';
import { eventually } from '../support/wait.js';
import { calendarStackPerSuite, meetLink, SYNC_MS } from './support.js';

describe('calendars: feed faults', function () {
  this.timeout(90_000);
  const w = calendarStackPerSuite();
  let n = 0;
  const goodFeed = () => icsCalendar([icsMeeting(`f${++n}`, Date.now() + 3_600_000, meetLink())]);
  const calendarOf = async (id: string) => {
    const answer = await w.call('GET', `/calendars/${id}`);
    expect(answer.status).to.equal(200);
    return answer.body.calendar;
  };
  const errorShown = (id: string, message: string | RegExp) =>
    eventually(
      async () => {
        const calendar = await calendarOf(id);
        return (
          calendar.status === 'error' &&
          (typeof message === 'string' ? calendar.error === message : message.test(calendar.error)) &&
          calendar
        );
      },
      `the error ${message}`,
      20_000,
    );
  const recovered = (id: string) =>
    eventually(async () => (await calendarOf(id)).status === 'ok', 'the calendar ok again', 20_000);

  it('reads an unchanged feed as a 304 (ETag)', async () => {
    const url = w.ics.feed(goodFeed());
    const { id } = await w.connect({ provider: 'ics', url, saveTranscript: false });
    await w.synced(id);
    await eventually(() => w.ics.hits(url).notModified >= 2, 'two 304s', 20_000);
    expect((await w.events(id)).length).to.equal(1);
  });

  it('shows a feed that cannot be reached, is not iCalendar, or is over 5 MB as an error, and recovers', async () => {
    const url = w.ics.feed(goodFeed());
    const { id } = await w.connect({ provider: 'ics', url, saveTranscript: false });
    await w.synced(id);

    w.ics.replaceWithHtml(url);
    await errorShown(id, 'The feed did not answer with iCalendar');
    w.ics.replaceWithBytes(url, 5 * 1024 * 1024 + 100);
    await errorShown(id, 'The feed is larger than 5 MB');
    w.ics.set(url, goodFeed());
    await recovered(id);
    expect((await w.events(id)).length).to.equal(1);

    await w.ics.server.pause();
    try {
      const shown = await errorShown(id, /^The feed could not be reached/);
      expect(shown.error).not.to.include('127.0.0.1');
      expect((await w.call('GET', `/calendars/${id}/events`)).status).to.equal(200);
    } finally {
      await w.ics.server.resume();
    }
    await recovered(id);
  });

  it('waits out a 503 for its Retry-After', async () => {
    const url = w.ics.feed(goodFeed());
    const { id } = await w.connect({ provider: 'ics', url, saveTranscript: false });
    await w.synced(id);
    const path = new URL(url).pathname;
    w.ics.faults.push(path, 503, { 'Retry-After': '5' });
    await errorShown(id, 'The feed answered HTTP 503; retrying later');
    await recovered(id);
    const mine = w.ics.server.requests.filter((r) => r.path === path);
    const failed = mine.findIndex((r) => r.status === 503);
    expect(mine[failed + 1].at - mine[failed].at).to.be.at.least(4900);
    expect(SYNC_MS).to.be.below(4900);
  });
});

describe('calendars: feed addresses with CALLBACK_ALLOW_PRIVATE=false', function () {
  this.timeout(60_000);
  it('refuses a loopback or private feed address at connect, naming the field', async () => {
    const t = await startTestStack({ CALLBACK_ALLOW_PRIVATE: 'false' });
    try {
      const { apiKey } = await t.createToken();
      for (const url of ['https://127.0.0.1:8443/a.ics', 'webcal://10.1.2.3/a.ics']) {
        const answer = await t.api('/calendars', {
          method: 'POST',
          apiKey,
          json: { provider: 'ics', url, callbackUrl: 'https://hooks.example.com/x' },
        });
        expect(answer.status).to.equal(400);
        expect((await answer.json()).error).to.match(
          /^url points to a refused address \(.* address, CALLBACK_ALLOW_PRIVATE=false\)$/,
        );
      }
    } finally {
      await t.stop();
    }
  });
});
