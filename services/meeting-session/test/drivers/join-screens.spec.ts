import { expect } from 'chai';
import {
  interstitialOf,
  joinChoicesOf,
  REFUSAL_WORDINGS,
  SCREEN_WORDINGS,
  seedWithChoice,
  seedWithRefusal,
  seedWithScreenWording,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import { createDriverFactory, type PuppeteerDriverFactory } from '../../src/drivers/index.js';
import { driversOnSimulator, expectRemovedAndEnded, joinSimulated, sleep } from './helpers.js';

/**
 * Join screens told by what they are, in real Chromium against the simulators: every wording of
 * every platform's guests-refused screen is a refusal (guest_refused, which the actor answers with
 * a bot account or sign_in_required), every wording of its not-found, lobby, removed and ended
 * screens is told for what it is, and a screen no rule knows is reported while the bot waits
 * on, then cleared once the page goes on, or named by the join timeout; so is a screen the bot
 * knows but cannot get past (a join that goes unanswered), never the lobby. A terminal screen is one
 * seen twice: a page half drawn for a moment (its "Sign in" control alone, or its default
 * no-access words) ends nothing.
 */
describe('Join screens by what they are (drivers)', function () {
  this.timeout(90_000);
  /**
   * Short, for quick cases, yet longer than a busy machine takes on a screen the bot gets past
   * (Zoom's launcher took 2 s with four pages at once): a known screen this long is one it is stuck on.
   */
  const WARN_AFTER_MS = 5_000;
  const suite = driversOnSimulator({ unknownScreenWarnMs: WARN_AFTER_MS });
  const PLATFORMS: SimPlatform[] = ['google_meet', 'teams', 'zoom'];
  let n = 0;

  const letters = (k: number) =>
    [0, 1, 2].map((i) => String.fromCharCode(97 + (Math.floor(k / 26 ** i) % 26))).join('');
  function nativeId(platform: SimPlatform): string {
    n++;
    if (platform === 'google_meet') return `jsc-${letters(n)}a-zzz`;
    if (platform === 'teams') return `19:meeting_JoinScreens${n}@thread.v2`;
    return String(8_800_000_000 + n);
  }

  for (const platform of PLATFORMS) {
    describe(platform, () => {
      for (const wording of REFUSAL_WORDINGS[platform]) {
        it(`guests refused, worded "${wording}": guest_refused`, async () => {
          const id = nativeId(platform);
          const markupSeed = seedWithRefusal(platform, wording, 1000 + n * 7);
          suite.sim.meeting(id, { guests: 'refused_screen', markupSeed });
          const { listener, driver } = await joinSimulated(suite, platform, id);
          await listener.until(() => listener.failedWith !== null, 'a failure');
          expect(listener.failedWith?.reason).to.equal('guest_refused');
          expect(listener.warnings, 'a refusal is a known screen').to.deep.equal([]);
          await driver.leave();
        });
      }

      for (const wording of SCREEN_WORDINGS[platform]) {
        it(`not found, the lobby, removed and ended, worded "${wording}": each told for what it is`, async () => {
          const markupSeed = seedWithScreenWording(platform, wording, 2000 + n * 13);
          const [missingId, waitingId, removedId, endedId] = [0, 1, 2, 3].map(() => nativeId(platform));
          suite.sim.meeting(missingId, { notFound: true, markupSeed });
          suite.sim.meeting(waitingId, { lobby: true, markupSeed });
          const removing = suite.sim.meeting(removedId, { lobby: false, markupSeed });
          const ending = suite.sim.meeting(endedId, { lobby: false, markupSeed });
          const [missing, waiting, removed, ended] = await Promise.all(
            [missingId, waitingId, removedId, endedId].map((id) => joinSimulated(suite, platform, id)),
          );
          await missing.listener.until(() => missing.listener.failedWith !== null, 'not found');
          expect(missing.listener.failedWith?.reason).to.equal('meeting_not_found');
          await waiting.listener.until(() => waiting.listener.events.includes('lobby'), 'the lobby');
          await expectRemovedAndEnded({ ...removed, meeting: removing }, { ...ended, meeting: ending });
          const all = [missing, waiting, removed, ended];
          expect(
            all.flatMap(({ listener }) => listener.warnings),
            'known screens all',
          ).to.deep.equal([]);
          await Promise.all(all.map(({ driver }) => driver.leave()));
        });
      }

      for (const moment of ['signIn', 'wall'] as const) {
        const drawn = moment === 'signIn' ? 'its "Sign in" control alone' : 'its no-access words';
        it(`a page drawn with ${drawn} for a moment before the pre-join ends nothing: the bot gets in`, async () => {
          const id = nativeId(platform);
          const markupSeed = seedWithChoice(platform, 'halfDrawn', moment, 5000 + n * 11);
          suite.sim.meeting(id, { lobby: false, markupSeed });
          const { listener, driver } = await joinSimulated(suite, platform, id);
          await listener.until(() => listener.events.includes('admitted') || listener.failedWith !== null, 'admitted');
          expect(listener.failedWith).to.equal(null);
          expect(listener.events).to.include('admitted');
          await driver.leave();
        });
      }

      if (platform !== 'zoom') {
        it('every lobby wording is the lobby, waited in (no refusal, no warning) until denied', async () => {
          const ways = joinChoicesOf(platform).lobbyWording;
          const ids = ways.map(() => nativeId(platform));
          const meetings = ways.map((way, i) =>
            suite.sim.meeting(ids[i], { markupSeed: seedWithChoice(platform, 'lobbyWording', way, 3000 + n * 17) }),
          );
          const joined = await Promise.all(ids.map((id) => joinSimulated(suite, platform, id)));
          await Promise.all(
            joined.map(({ listener }, i) => listener.until(() => listener.events.includes('lobby'), ways[i])),
          );
          await sleep(600);
          joined.forEach(({ listener }, i) => expect(listener.events, ways[i]).to.deep.equal(['lobby']));
          meetings.forEach((meeting) => meeting.deny());
          await Promise.all(joined.map(({ listener }) => listener.until(() => listener.failedWith !== null, 'denied')));
          joined.forEach(({ listener }, i) =>
            expect(listener.failedWith?.reason, ways[i]).to.equal('admission_denied'),
          );
          await Promise.all(joined.map(({ driver }) => driver.leave()));
        });

        for (const wording of SCREEN_WORDINGS[platform]) {
          it(`denied and unanswered, worded "${wording}": admission_denied and lobby_timeout`, async () => {
            const markupSeed = seedWithScreenWording(platform, wording, 5000 + n * 19);
            const [deniedId, unansweredId] = [nativeId(platform), nativeId(platform)];
            const denying = suite.sim.meeting(deniedId, { markupSeed });
            const silent = suite.sim.meeting(unansweredId, { markupSeed });
            const [denied, unanswered] = await Promise.all(
              [deniedId, unansweredId].map((id) => joinSimulated(suite, platform, id)),
            );
            await Promise.all(
              [denied, unanswered].map(({ listener }) =>
                listener.until(() => listener.events.includes('lobby'), 'the lobby'),
              ),
            );
            denying.deny();
            silent.noAnswer();
            await Promise.all(
              [denied, unanswered].map(({ listener }) =>
                listener.until(() => listener.failedWith !== null, 'a failure'),
              ),
            );
            expect(denied.listener.failedWith?.reason).to.equal('admission_denied');
            expect(unanswered.listener.failedWith?.reason).to.equal('lobby_timeout');
            await Promise.all([denied, unanswered].map(({ driver }) => driver.leave()));
          });
        }
      }

      it('the sign-in page a guest is sent to: guest_refused', async () => {
        const id = nativeId(platform);
        suite.sim.meeting(id, { guests: 'refused_sign_in' });
        const { listener, driver } = await joinSimulated(suite, platform, id);
        await listener.until(() => listener.failedWith !== null, 'a failure');
        expect(listener.failedWith?.reason).to.equal('guest_refused');
        await driver.leave();
      });

      it('an unknown screen is reported (structure, screenshot) while the bot waits, and cleared when it goes', async () => {
        const id = nativeId(platform);
        const markupSeed = 4242 + n;
        const meeting = suite.sim.meeting(id, { interstitial: true, lobby: false, markupSeed });
        const startedAt = Date.now();
        const { listener, driver } = await joinSimulated(suite, platform, id);
        await listener.until(() => listener.warnings.length > 0, 'the warning');
        const raised = listener.warnings[0];
        expect(raised.warning).to.equal('join_screen_unknown');
        if (!raised.raised) throw new Error('the first warning is a raised one');
        expect(Date.now() - startedAt).to.be.at.least(WARN_AFTER_MS);
        expect(raised.seen).to.include(interstitialOf(markupSeed).heading);
        expect(raised.snapshot.length, 'the page structure').to.be.greaterThan(2);
        expect(JSON.stringify(raised.snapshot)).not.to.include(interstitialOf(markupSeed).heading);
        expect(
          Buffer.from(raised.screenshot ?? [])
            .subarray(1, 4)
            .toString(),
          'a PNG',
        ).to.equal('PNG');
        expect(listener.failedWith).to.equal(null);
        meeting.configure({ interstitial: false });
        await listener.until(() => listener.events.includes('admitted'), 'admitted once the screen went');
        expect(listener.events.filter((e) => e.startsWith('warning:'))).to.deep.equal([
          'warning:join_screen_unknown:raised',
          'warning:join_screen_unknown:cleared',
        ]);
        await driver.leave();
      });

      it('a known screen the bot cannot get past (a join that goes unanswered) is reported, cleared when it moves on; the lobby never is', async () => {
        const id = nativeId(platform);
        const meeting = suite.sim.meeting(id, { joinHangs: true, lobby: true });
        const startedAt = Date.now();
        const { listener, driver } = await joinSimulated(suite, platform, id);
        await listener.until(() => listener.warnings.length > 0, 'the warning');
        const raised = listener.warnings[0];
        if (!raised.raised) throw new Error('the first warning is a raised one');
        expect(raised.warning).to.equal('join_screen_unknown');
        expect(Date.now() - startedAt).to.be.at.least(WARN_AFTER_MS);
        expect(raised.seen).to.match(/^the prejoin screen at \S+ for \d+ s$/);
        expect(raised.snapshot.length, 'the page structure').to.be.greaterThan(2);
        expect(
          Buffer.from(raised.screenshot ?? [])
            .subarray(1, 4)
            .toString(),
          'a PNG',
        ).to.equal('PNG');
        meeting.configure({ joinHangs: false });
        await listener.until(() => listener.events.includes('lobby'), 'the lobby once the join is answered');
        await sleep(WARN_AFTER_MS + 1_000);
        meeting.admit();
        await listener.until(() => listener.events.includes('admitted'), 'admitted');
        expect(listener.events.filter((e) => e.startsWith('warning:'))).to.deep.equal([
          'warning:join_screen_unknown:raised',
          'warning:join_screen_unknown:cleared',
        ]);
        expect(listener.failedWith).to.equal(null);
        await driver.leave();
      });
    });
  }

  describe('the join timeout', () => {
    let factory: PuppeteerDriverFactory;
    before(() => {
      factory = createDriverFactory({
        extraArgs: suite.sim.hostResolverRules(),
        pollIntervalMs: 150,
        joinTimeoutMs: 5_000,
        // Well within the join timeout: the warning comes first.
        unknownScreenWarnMs: 1_500,
      });
    });
    after(() => factory?.close());

    for (const platform of PLATFORMS) {
      it(`${platform}: names the unknown screen the bot was stuck on`, async () => {
        const id = nativeId(platform);
        const markupSeed = 777 + n;
        suite.sim.meeting(id, { interstitial: true, markupSeed });
        const { listener, driver } = await joinSimulated({ sim: suite.sim, factory }, platform, id);
        await listener.until(() => listener.failedWith !== null, 'the join timeout', 20_000);
        expect(listener.failedWith?.reason).to.equal('join_failed');
        expect(listener.failedWith?.detail).to.include(`an unknown screen ("${interstitialOf(markupSeed).heading}")`);
        expect(listener.events[0]).to.equal('warning:join_screen_unknown:raised');
        await driver.leave();
      });
    }
  });
});
