import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { interstitialOf, REFUSAL_WORDINGS, seedWithRefusal, type SimPlatform } from '../simulators/index.js';
import { eventually } from '../support/wait.js';
import { useBotAccounts } from './support/bot-accounts.js';
import { payloadOf, statusOf, useWorld } from './support/world.js';

/**
 * Join screens told by what they are, through the whole stack: on every platform each wording of
 * the guests-refused screen sends the bot to its bot account (`signIn: auto`) or ends the meeting
 * in `sign_in_required` (`never`); a screen the bot does not know is reported within 30 s
 * (`join_screen_unknown` on the stream and the record, a log line, a structural snapshot and a
 * screenshot), and the meeting goes live once the screen goes away; so is a screen the bot knows
 * but cannot get past for 15 s (a join request that goes unanswered).
 */
describe('Join screens by what they are (whole stack)', function () {
  this.timeout(180_000);
  const world = useWorld({}, { chromiumRequired: true });
  const accounts = useBotAccounts(world, 'Screens Bot', 'screens');
  const PLATFORMS: SimPlatform[] = ['google_meet', 'teams', 'zoom'];

  for (const platform of PLATFORMS) {
    for (const wording of REFUSAL_WORDINGS[platform]) {
      it(`${platform}, guests refused worded "${wording}": auto joins with the bot account, never ends sign_in_required`, async () => {
        const markupSeed = seedWithRefusal(platform, wording, 5000 + accounts.count() * 13);
        const meeting = { guests: 'refused_screen' as const, lobby: false, markupSeed };
        const never = await world().start(platform, { meeting, request: { signIn: 'never' } });
        const account = await accounts.add(platform);
        const auto = await world().start(platform, { meeting, request: { signIn: 'auto' } });
        const refused = await world().waitForStatus(never.meetingId, 'error', 20_000);
        expect(payloadOf(refused).reason).to.equal('sign_in_required');
        const live = await world().waitForStatus(auto.meetingId, 'live', 30_000);
        expect(payloadOf(live).signedInAs).to.match(/^screens-/);
        expect(auto.sim.truth().bots.at(-1)?.account).to.equal(account.sim.email);
        await world().stop(auto.meetingId);
        await world().waitForStatus(auto.meetingId, 'ended');
      });
    }
  }

  for (const platform of PLATFORMS) {
    it(`${platform}: an unknown screen warns within 30 s (stream, record, log, snapshot, screenshot), then the meeting joins`, async () => {
      const markupSeed = 9100 + PLATFORMS.indexOf(platform);
      const heading = interstitialOf(markupSeed).heading;
      const startedAt = Date.now();
      const m = await world().start(platform, { meeting: { interstitial: true, lobby: false, markupSeed } });
      const warned = await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'meeting_status' && payloadOf(c).warning === 'join_screen_unknown',
        'the join_screen_unknown warning',
        30_000,
      );
      expect(Date.now() - startedAt, 'within 30 s').to.be.below(30_000);
      expect(statusOf(warned)).to.equal('joining');
      expect(payloadOf(warned).previousStatus).to.equal('joining');

      const warningsOnRecord = async () => {
        const status = (await (await world().get('/meetings/status')).json()) as {
          meetings: Array<Record<string, unknown>>;
        };
        return JSON.stringify(status.meetings.find((x) => x.meetingId === m.meetingId)?.warnings);
      };
      await eventually(
        async () => (await warningsOnRecord()) === '["join_screen_unknown"]',
        'the warning on the record',
      );

      const line = await world().waitForLogWarning(m.meetingId, { warning: 'join_screen_unknown' });
      expect(String(line.seen)).to.include(heading);
      const snapshot = JSON.parse(fs.readFileSync(String(line.snapshot), 'utf8')) as Record<string, unknown>;
      expect(path.dirname(String(line.snapshot))).to.equal(path.join(world().t.dataDir, 'caption-snapshots'));
      expect(JSON.stringify(snapshot.nodes)).not.to.include(heading);
      expect(snapshot.screenshot).to.equal(line.screenshot);
      expect(fs.readFileSync(String(line.screenshot)).subarray(1, 4).toString(), 'a PNG').to.equal('PNG');
      const metrics = (await (await fetch(`${world().t.baseUrl}/metrics`)).text()).split('\n');
      const counted = metrics.filter((l) => l.startsWith('meeting_join_screen_unknown_total{'));
      expect(counted.join('\n')).to.match(new RegExp(`platform="${platform}"[^}]*\\} [1-9]`));

      m.sim.configure({ interstitial: false });
      await world().waitForStatus(m.meetingId, 'live', 30_000);
      await eventually(async () => (await warningsOnRecord()) === '[]', 'the warning cleared from the record');
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended');
    });
  }

  for (const platform of PLATFORMS) {
    it(`${platform}: stuck on a screen it knows (a join that goes unanswered), the bot warns within 30 s, then it moves on and the meeting joins`, async () => {
      const startedAt = Date.now();
      const m = await world().start(platform, { meeting: { joinHangs: true, lobby: false } });
      const warned = await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'meeting_status' && payloadOf(c).warning === 'join_screen_unknown',
        'the join_screen_unknown warning',
        30_000,
      );
      expect(Date.now() - startedAt, 'not before 15 s').to.be.at.least(15_000);
      expect(statusOf(warned)).to.equal('joining');
      const line = await world().waitForLogWarning(m.meetingId, { warning: 'join_screen_unknown' });
      expect(String(line.seen)).to.match(/^the prejoin screen at \S+ for 1\d s$/);
      expect(fs.readFileSync(String(line.screenshot)).subarray(1, 4).toString(), 'a PNG').to.equal('PNG');
      m.sim.configure({ joinHangs: false });
      await world().waitForStatus(m.meetingId, 'live', 30_000);
      await eventually(async () => {
        const status = (await (await world().get('/meetings/status')).json()) as {
          meetings: Array<{ meetingId: string; warnings: string[] }>;
        };
        return status.meetings.find((x) => x.meetingId === m.meetingId)?.warnings.length === 0;
      }, 'the warning cleared from the record');
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended');
    });
  }
});
