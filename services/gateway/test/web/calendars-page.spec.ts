/**
 * The Calendars page over HTTP, on the real stack with the scripted platform and a local HTTPS
 * feed: connect a feed from the browser, see its meetings and whether a bot goes to each, choose
 * for one meeting, disconnect. The feed address is never rendered back, not even after an error.
 */
import { expect } from 'chai';
import {
  icsCalendar,
  icsMeeting,
  startIcsFeedServer,
  type IcsFeedServer,
} from '../../../../test/support/calendar-providers/ics-feed.js';
import { eventually } from '../../../../test/support/wait.js';
import { signedInStackPerSuite } from './support/signed-in-stack.js';

describe('web application: calendars', () => {
  const t = signedInStackPerSuite();
  let ics: IcsFeedServer;
  before(async () => {
    ics = await startIcsFeedServer();
  });
  after(() => ics.close());

  it('connects a feed, shows its meetings, takes a choice for one and disconnects', async () => {
    const link = 'https://meet.google.com/cal-page-tst';
    const url = ics.feed(icsCalendar([icsMeeting('weekly', Date.now() + 3_600_000, link, ['SUMMARY:Roadmap review'])]));
    const empty = await t.owner.get('/calendars');
    expect(empty.text).to.contain('No calendar connected yet.');
    expect(empty.text).to.match(/<a href="\/calendars" aria-current="page"|href="\/calendars"/);

    const bad = await t.owner.submit('/calendars', {
      provider: 'ics',
      url: url.replace('https:', 'http:'),
      join: 'accepted',
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.match(/id="f-url-error"[^>]*>url must be an https:\/\/ or webcal:\/\/ address/);
    expect(bad.text).not.to.include(new URL(url).pathname);

    const connected = await t.owner.submit('/calendars', {
      provider: 'ics',
      url,
      join: 'accepted',
      project: 'roadmap',
    });
    expect(connected.status).to.equal(303);
    const location = connected.headers.get('location')!;
    expect(location).to.match(/^\/calendars\/cal_[A-Za-z0-9_-]+\?notice=calendar-connected$/);
    const page = await eventually(
      async () => {
        const shown = await t.owner.get(location);
        return shown.text.includes('Roadmap review') && shown;
      },
      'the meeting shown',
      20_000,
    );
    expect(page.text).to.match(/goes \(the calendar’s rule\)/);
    expect(page.text).not.to.include(new URL(url).pathname);

    const calendarPath = location.split('?')[0];
    const action = /action="(\/calendars\/cal_[^/]+\/events\/evt_[^/]+\/join)"/.exec(page.text)![1];
    const chose = await t.owner.submit(action, { join: 'false' }, calendarPath);
    expect(chose.status).to.equal(303);
    expect((await t.owner.get(calendarPath)).text).to.match(/does not go \(your choice\)/);

    const removed = await t.owner.submit(`${calendarPath}/delete`, {}, calendarPath);
    expect(removed.status).to.equal(303);
    expect((await t.owner.get('/calendars')).text).to.contain('No calendar connected yet.');
  });
});
