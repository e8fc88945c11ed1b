/**
 * How meetings end when the platform decides, in real Chromium on both simulated platforms: the
 * request to join is denied, the host removes the bot, the host ends the meeting for everyone, the
 * meeting does not exist, Teams wants a sign-in, nobody answers the request to join. Each
 * must reach the receiver as the right final status and reason, signed and in sequence, with the
 * final document flush before it and the transcript kept.
 */
import { expect } from 'chai';
import { growWords, type SimPlatform } from '../simulators/index.js';
import { expectKeptAsSaid, expectTranscript, finishedStream } from './support/stream.js';
import { endedBy, failedWith, JOINED, shape } from './support/shape.js';
import { payloadOf, type StartedMeeting, useWorld, type World } from './support/world.js';

const PLATFORMS: Array<{ platform: SimPlatform; label: string; teamsLive?: boolean }> = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Teams (teams.live.com)', teamsLive: true },
];

describe('whole stack in real Chromium: meetings the platform ends', function () {
  this.timeout(45_000);
  const world = useWorld();

  /** The final status callback, then the whole stream checked for signatures and sequence. */
  const finished = (m: StartedMeeting, status: 'ended' | 'error') => finishedStream(world(), m, status);

  for (const { platform, label, teamsLive } of PLATFORMS) {
    const start = (options: Parameters<World['start']>[1] = {}) =>
      world().start(platform, { nativeId: world().newNativeId(platform, teamsLive), ...options });
    /** A meeting with no lobby, live with captions on. */
    const startLive = async () => {
      const m = await start({ meeting: { lobby: false } });
      await world().waitForStatus(m.meetingId, 'live');
      await m.sim.waitForBot((bot) => bot.captionsOn);
      return m;
    };

    it(`${label}: a denied request to join -> error admission_denied`, async () => {
      const m = await start();
      await world().waitForStatus(m.meetingId, 'lobby');
      m.sim.deny();
      const callbacks = await finished(m, 'error');
      expect(shape(callbacks)).to.deep.equal([
        'meeting_status:joining',
        'meeting_status:lobby',
        ...failedWith('admission_denied'),
      ]);
      expect(payloadOf(callbacks.at(-1)!)).to.deep.equal({
        status: 'error',
        previousStatus: 'lobby',
        reason: 'admission_denied',
      });
      expect(payloadOf(callbacks.at(-2)!)).to.include({ segmentsWritten: 0, totalSegments: 0 });
      await expectTranscript(world(), m.meetingId, m.token, 'error', []);
      const stop = await world().stop(m.meetingId);
      expect(stop.status).to.equal(409);
    });

    it(`${label}: removed by the host -> ended removed, the turn in progress kept`, async () => {
      const m = await startLive();
      await m.sim.speak('Alice Example', growWords('before you go one more thing'));
      await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'caption_partial' && payloadOf(c).text === 'before you go one more thing',
        'the last partial',
      );
      m.sim.removeBot();
      const callbacks = await finished(m, 'ended');
      expect(shape(callbacks)).to.deep.equal([...JOINED, 'captions', ...endedBy('removed')]);
      const segments = await expectKeptAsSaid(world(), m, callbacks, 'ended');
      expect(segments.map((s) => s.text)).to.deep.equal(['before you go one more thing']);
    });

    it(`${label}: the host ends the meeting for everyone -> ended meeting_ended`, async () => {
      const m = await startLive();
      m.sim.end();
      const callbacks = await finished(m, 'ended');
      expect(shape(callbacks)).to.deep.equal([...JOINED, ...endedBy('meeting_ended')]);
      await expectTranscript(world(), m.meetingId, m.token, 'ended', []);
    });
  }

  it('a bot that cannot get in: meeting_not_found (Meet), sign_in_required (Teams refuses guests, no bot account), lobby_timeout (nobody answers)', async () => {
    const [notFound, signIn, unanswered] = await Promise.all([
      world().start('google_meet', { meeting: { notFound: true } }),
      world().start('teams', { meeting: { guests: 'refused_sign_in' } }),
      world().start('google_meet'),
    ]);
    await world().waitForStatus(unanswered.meetingId, 'lobby');
    unanswered.sim.noAnswer();
    const expected: Array<[StartedMeeting, string[]]> = [
      [notFound, ['meeting_status:joining', ...failedWith('meeting_not_found')]],
      [signIn, ['meeting_status:joining', ...failedWith('sign_in_required')]],
      [unanswered, ['meeting_status:joining', 'meeting_status:lobby', ...failedWith('lobby_timeout')]],
    ];
    for (const [m, trail] of expected) expect(shape(await finished(m, 'error'))).to.deep.equal(trail);
    // Nobody was left waiting in a lobby or holding the URL.
    expect(unanswered.sim.truth().bots[0].screen).to.equal('terminal');
    const again = await world().start('google_meet', { nativeId: notFound.sim.id });
    expect(shape(await finished(again, 'error')).at(-1)).to.equal('meeting_status:error(meeting_not_found)');
  });
});
