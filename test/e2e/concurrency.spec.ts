/**
 * Two meetings at once, of two API keys, on the two platforms, sharing one stack and one browser:
 * each key's receiver sees only its meeting's events signed with its own secret, each transcript
 * holds only what was said in its meeting, stopping one leaves the other running. A URL being
 * transcribed cannot be started again (409), whoever asks and however the link is written, and is
 * free again once its meeting ended.
 */
import { expect } from 'chai';
import { verifySignature } from '../support/callback-receiver.js';
import { growWords } from '../simulators/index.js';
import { expectKeptAsSaid, finalizedSegments, finishedStream } from './support/stream.js';
import { endedBy, JOINED_AND_CAPTIONED, shape } from './support/shape.js';
import { useWorld, type StartedMeeting, type Token } from './support/world.js';

describe('whole stack in real Chromium: meetings side by side', function () {
  this.timeout(60_000);
  const world = useWorld();
  /** The second API key: its meetings, receiver signatures and reads are its own. */
  let other: Token;
  before(async () => {
    other = (await world().t.createToken()) as Token;
  });

  const segmentCount = (m: StartedMeeting) => finalizedSegments(world().callbacks(m.meetingId)).length;
  const listed = async (token: Token) =>
    (
      (await (await world().get('/meetings/status', token)).json()) as {
        meetings: Array<{ meetingId: string; status: string }>;
      }
    ).meetings;

  it('a Meet and a Teams meeting at once stay apart; the same URL is refused while live (409) and free after', async () => {
    const [meet, teams] = await Promise.all([
      world().start('google_meet', { meeting: { lobby: false }, title: 'Meet side' }),
      world().start('teams', { meeting: { lobby: false }, title: 'Teams side', token: other }),
    ]);
    meet.sim.join('Alice Example');
    teams.sim.join('Carol Example');
    await Promise.all([world().waitForStatus(meet.meetingId, 'live'), world().waitForStatus(teams.meetingId, 'live')]);

    // The same meeting, by the other key, by the same key, and written differently: 409, no bot.
    const code = meet.sim.id;
    for (const [url, token] of [
      [meet.url, other],
      [meet.url, world().token],
      [`meet.google.com/${code.toUpperCase()}/?authuser=1`, other],
      [teams.url, world().token],
    ] as const) {
      const res = await world().startRaw({ url, callbackUrl: `${world().rx.url}/hooks/notetaker` }, token);
      expect(res.status, url).to.equal(409);
      expect(await res.json()).to.deep.equal({ error: 'Meeting URL is already being transcribed' });
    }

    await Promise.all([meet.sim.waitForBot((b) => b.captionsOn), teams.sim.waitForBot((b) => b.captionsOn)]);
    await Promise.all([
      meet.sim.speak('Alice Example', growWords('the Meet side budget is approved')),
      teams.sim.speak('Carol Example', growWords('on Teams we still wait for legal')),
    ]);
    await Promise.all([
      world().waitForCallback(meet.meetingId, () => segmentCount(meet) === 1, 'Meet segment'),
      world().waitForCallback(teams.meetingId, () => segmentCount(teams) === 1, 'Teams segment'),
    ]);

    // Each key lists and reads only its own meeting.
    expect((await listed(world().token)).map((x) => x.meetingId)).to.deep.equal([meet.meetingId]);
    expect((await listed(other)).map((x) => x.meetingId)).to.deep.equal([teams.meetingId]);
    for (const [meetingId, token] of [
      [meet.meetingId, other],
      [teams.meetingId, world().token],
    ] as const) {
      const res = await world().get(`/meetings/${meetingId}/transcript`, token);
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ error: 'Not found' });
    }

    // Stopping one leaves the other live and transcribing.
    expect((await world().stop(meet.meetingId)).status).to.equal(200);
    await world().waitForStatus(meet.meetingId, 'ended');
    expect((await listed(other)).map((x) => [x.meetingId, x.status])).to.deep.equal([[teams.meetingId, 'live']]);
    await teams.sim.speak('Carol Example', growWords('and legal answers tomorrow'));
    await world().waitForCallback(teams.meetingId, () => segmentCount(teams) === 2, 'second Teams segment');

    // The URL is free once its meeting ended.
    const again = await world().start('google_meet', { nativeId: code, token: other });
    await world().waitForStatus(again.meetingId, 'live');
    expect((await world().stop(again.meetingId, other)).status).to.equal(200);
    expect((await world().stop(teams.meetingId, other)).status).to.equal(200);
    await Promise.all([
      world().waitForStatus(again.meetingId, 'ended'),
      world().waitForStatus(teams.meetingId, 'ended'),
    ]);

    for (const [m, foreign] of [
      [meet, other],
      [teams, world().token],
    ] as const) {
      const callbacks = await finishedStream(world(), m, 'ended');
      for (const c of callbacks) {
        expect(
          verifySignature(foreign.signingSecret, c.rawBody, String(c.headers['x-service-signature'])),
          'signed with the other key',
        ).to.equal(false);
      }
      expect(shape(callbacks)).to.deep.equal([...JOINED_AND_CAPTIONED, ...endedBy('stopped')]);
      await expectKeptAsSaid(world(), m, callbacks, 'ended');
    }
    expect(finalizedSegments(world().callbacks(meet.meetingId)).map((s) => s.speaker)).to.deep.equal(['Alice Example']);
    expect(finalizedSegments(world().callbacks(teams.meetingId)).map((s) => s.speaker)).to.deep.equal([
      'Carol Example',
      'Carol Example',
    ]);
    // Each simulated meeting saw one bot of ours at a time: the refused starts launched none.
    expect(meet.sim.truth().bots.map((b) => b.leftVia)).to.deep.equal(['leave_button', 'leave_button']);
    expect(teams.sim.truth().bots.map((b) => b.leftVia)).to.deep.equal(['leave_button']);
  });
});
