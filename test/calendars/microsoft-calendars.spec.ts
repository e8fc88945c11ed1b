/**
 * Microsoft 365 through the whole stack against a local stand-in of Graph and the identity
 * platform's token endpoint: a Teams meeting's bot on time from onlineMeeting.joinUrl, a moved
 * event and a removed one followed through the delta link, a full read again on 410, a rotated
 * refresh token kept, and a refused one as `disconnected`.
 */
import { expect } from 'chai';
import { graphTime, type GraphEvent } from '../support/calendar-providers/microsoft-graph.js';
import { eventually, sleep } from '../support/wait.js';
import { calendarStackPerSuite, soon, SYNC_MS } from './support.js';

let thread = 0;
/** A fresh Teams meetup-join link, as Outlook writes it. */
function teamsLink(): string {
  const id = `meeting_${Date.now().toString(36)}${(++thread).toString(36)}`;
  return `https://teams.microsoft.com/l/meetup-join/19%3a${id}%40thread.v2/0?context=%7b%22Tid%22%3a%22t%22%7d`;
}

function graphEvent(id: string, start: number, joinUrl: string, more: Partial<GraphEvent> = {}): GraphEvent {
  return {
    id,
    subject: `Teams ${id}`,
    start: graphTime(start),
    end: graphTime(start + 30 * 60_000),
    isCancelled: false,
    isOrganizer: false,
    responseStatus: { response: 'accepted' },
    isOnlineMeeting: true,
    onlineMeeting: { joinUrl },
    body: { contentType: 'html', content: '<p>Agenda</p>' },
    ...more,
  };
}

describe('calendars: Microsoft 365', function () {
  this.timeout(90_000);
  const w = calendarStackPerSuite();
  let n = 0;
  const connectMicrosoft = async () => {
    const client = w.graph.tokens.client();
    const calendar = await w.connect({
      provider: 'microsoft',
      ...client,
      tenant: 'contoso.onmicrosoft.com',
      saveTranscript: false,
    });
    return { calendar, client };
  };
  const teamsStartsFor = (link: string) =>
    w.starts.filter(
      (s) =>
        s.target.platform === 'teams' &&
        decodeURIComponent(s.target.url).includes(decodeURIComponent(link).split('/0?')[0].split('meetup-join/')[1]),
    );

  it('sends a bot on time to a Teams meeting, follows a moved one and drops a removed or declined one', async () => {
    const ids = [`e${++n}`, `e${++n}`, `e${++n}`, `e${++n}`];
    const [onTime, moved, removed, declined] = [teamsLink(), teamsLink(), teamsLink(), teamsLink()];
    const start = soon(6000);
    w.graph.put(graphEvent(ids[0], start, onTime, { subject: 'Budget' }));
    w.graph.put(graphEvent(ids[1], start + 60_000, moved));
    w.graph.put(graphEvent(ids[2], start, removed));
    w.graph.put(graphEvent(ids[3], start, declined, { responseStatus: { response: 'declined' } }));
    const { calendar } = await connectMicrosoft();
    expect(calendar).to.include({ provider: 'microsoft', tenant: 'contoso.onmicrosoft.com', calendarId: null });
    await w.synced(calendar.id);
    const shown = await w.events(calendar.id);
    expect(shown.map((e: any) => [e.title, e.platform, e.join, e.reason])).to.include.deep.members([
      ['Budget', 'teams', true, 'rule'],
      [`Teams ${ids[3]}`, 'teams', false, 'declined'],
    ]);
    const movedTo = soon(3 * SYNC_MS);
    w.graph.put(graphEvent(ids[1], movedTo, moved));
    w.graph.remove(ids[2]);

    const bot = await eventually(() => teamsStartsFor(onTime)[0], 'the Teams bot', 30_000);
    expect(bot.at).to.be.at.least(start - 50);
    const movedBot = await eventually(() => teamsStartsFor(moved)[0], 'the moved bot', 30_000);
    expect(movedBot.at).to.be.at.least(movedTo - 50);
    await sleep(SYNC_MS);
    expect(teamsStartsFor(removed)).to.have.length(0);
    expect(teamsStartsFor(declined)).to.have.length(0);
    expect(w.graph.deltas().some((r) => r.query.has('$deltatoken'))).to.equal(true);
    expect(w.graph.deltas().every((r) => String(r.headers.prefer).includes('outlook.timezone="UTC"'))).to.equal(true);
  });

  it('reads the milliseconds of a start Graph writes with a fraction (.8150000), so no bot goes early', async () => {
    const id = `e${++n}`;
    const start = soon(60_000) + 815;
    w.graph.put(graphEvent(id, start, teamsLink()));
    const { calendar } = await connectMicrosoft();
    await w.synced(calendar.id);
    const shown = (await w.events(calendar.id)).find((e: any) => e.title === `Teams ${id}`);
    expect(shown?.startAt).to.equal(new Date(start).toISOString());
  });

  it('reads the window in full again on 410, and keeps a refresh token the platform rotated', async () => {
    w.graph.tokens.rotate = true;
    try {
      const { calendar } = await connectMicrosoft();
      await w.synced(calendar.id);
      const grants = w.graph.tokens.grants;
      w.graph.tokens.expireAccessTokens();
      w.graph.invalidateDeltaLinks();
      const link = teamsLink();
      w.graph.put(graphEvent(`e${++n}`, Date.now() + 3_600_000, link));
      await eventually(
        async () => (await w.events(calendar.id)).some((e: any) => e.meetingUrl === link),
        'read after the 410',
        20_000,
      );
      // A second refresh with the rotated token works too: the new one was sealed in place of the old.
      w.graph.tokens.expireAccessTokens();
      const again = teamsLink();
      w.graph.put(graphEvent(`e${++n}`, Date.now() + 3_600_000, again));
      await eventually(
        async () => (await w.events(calendar.id)).some((e: any) => e.meetingUrl === again),
        'read after a second refresh',
        20_000,
      );
      expect(w.graph.tokens.grants).to.be.at.least(grants + 2);
      expect((await w.call('GET', `/calendars/${calendar.id}`)).body.calendar).to.include({
        status: 'ok',
        error: null,
      });
    } finally {
      w.graph.tokens.rotate = false;
    }
  });

  it('turns a refused refresh token into `disconnected`', async () => {
    const { calendar, client } = await connectMicrosoft();
    await w.synced(calendar.id);
    w.graph.tokens.revoke(client.refreshToken);
    const shown = await eventually(
      async () => {
        const { body } = await w.call('GET', `/calendars/${calendar.id}`);
        return body.calendar.status === 'disconnected' && body.calendar;
      },
      'disconnected',
      20_000,
    );
    expect(shown.error).to.match(/Microsoft refused the refresh token \(invalid_grant\)/);
  });
});
