import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { interstitialOf, REFUSAL_WORDINGS, seedWithRefusal, type SimPlatform } from '../simulators/index.js';
import { eventually } from '../support/wait.js';
import { chromiumMissing, payloadOf, startWorld, statusOf, type World } from './support/world.js';

/**
 * Join screens told by what they are, through the whole stack: on every platform each wording of
 * the guests-refused screen sends the bot to its bot account (`signIn: auto`) or ends the meeting
 * in `sign_in_required` (`never`); a screen the bot does not know is reported within 30 s
 * (`join_screen_unknown` on the stream and the record, a log line, a structural snapshot and a
 * screenshot), and the meeting goes live once the screen goes away.
 */
describe('Join screens by what they are (whole stack)', function () {
  this.timeout(180_000);
  let w: World;
  const PLATFORMS: SimPlatform[] = ['google_meet', 'teams', 'zoom'];

  before(async function () {
    const missing = chromiumMissing();
    if (missing) throw new Error(missing);
    w = await startWorld();
  });
  after(async () => w?.close());

  let accounts = 0;
  async function botAccount(platform: SimPlatform) {
    const n = ++accounts;
    const sim = w.sim.account(platform, `Screens Bot ${n}`, `screens${n}@bots.example.com`);
    await w.t.stack.admin({
      command: 'bot-account.add',
      platform,
      name: `screens-${n}`,
      session: JSON.stringify(sim.storageState),
    });
    return sim;
  }
  afterEach(async () => {
    const list = (await w.t.stack.admin({ command: 'bot-account.list' })) as Array<{ id: string }>;
    for (const { id } of list) await w.t.stack.admin({ command: 'bot-account.remove', id });
  });

  for (const platform of PLATFORMS) {
    for (const wording of REFUSAL_WORDINGS[platform]) {
      it(`${platform}, guests refused worded "${wording}": auto joins with the bot account, never ends sign_in_required`, async () => {
        const markupSeed = seedWithRefusal(platform, wording, 5000 + accounts * 13);
        const meeting = { guests: 'refused_screen' as const, lobby: false, markupSeed };
        const never = await w.start(platform, { meeting, request: { signIn: 'never' } });
        const account = await botAccount(platform);
        const auto = await w.start(platform, { meeting, request: { signIn: 'auto' } });
        const refused = await w.waitForStatus(never.meetingId, 'error', 20_000);
        expect(payloadOf(refused).reason).to.equal('sign_in_required');
        const live = await w.waitForStatus(auto.meetingId, 'live', 30_000);
        expect(payloadOf(live).signedInAs).to.match(/^screens-/);
        expect(auto.sim.truth().bots.at(-1)?.account).to.equal(account.email);
        await w.stop(auto.meetingId);
        await w.waitForStatus(auto.meetingId, 'ended');
      });
    }
  }

  for (const platform of PLATFORMS) {
    it(`${platform}: an unknown screen warns within 30 s (stream, record, log, snapshot, screenshot), then the meeting joins`, async () => {
      const markupSeed = 9100 + PLATFORMS.indexOf(platform);
      const heading = interstitialOf(markupSeed).heading;
      const startedAt = Date.now();
      const m = await w.start(platform, { meeting: { interstitial: true, lobby: false, markupSeed } });
      const warned = await w.waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'meeting_status' && payloadOf(c).warning === 'join_screen_unknown',
        'the join_screen_unknown warning',
        30_000,
      );
      expect(Date.now() - startedAt, 'within 30 s').to.be.below(30_000);
      expect(statusOf(warned)).to.equal('joining');
      expect(payloadOf(warned).previousStatus).to.equal('joining');

      const warningsOnRecord = async () => {
        const status = (await (await w.get('/meetings/status')).json()) as { meetings: Array<Record<string, unknown>> };
        return JSON.stringify(status.meetings.find((x) => x.meetingId === m.meetingId)?.warnings);
      };
      await eventually(
        async () => (await warningsOnRecord()) === '["join_screen_unknown"]',
        'the warning on the record',
      );

      const line = await eventually(
        () => w.t.warnings().find((l) => l.meetingId === m.meetingId && l.warning === 'join_screen_unknown'),
        'the log line',
      );
      expect(String(line.seen)).to.include(heading);
      const snapshot = JSON.parse(fs.readFileSync(String(line.snapshot), 'utf8')) as Record<string, unknown>;
      expect(path.dirname(String(line.snapshot))).to.equal(path.join(w.t.dataDir, 'caption-snapshots'));
      expect(JSON.stringify(snapshot.nodes)).not.to.include(heading);
      expect(snapshot.screenshot).to.equal(line.screenshot);
      expect(fs.readFileSync(String(line.screenshot)).subarray(1, 4).toString(), 'a PNG').to.equal('PNG');
      const metrics = (await (await fetch(`${w.t.baseUrl}/metrics`)).text()).split('\n');
      const counted = metrics.filter((l) => l.startsWith('meeting_join_screen_unknown_total{'));
      expect(counted.join('\n')).to.match(new RegExp(`platform="${platform}"[^}]*\\} [1-9]`));

      m.sim.configure({ interstitial: false });
      await w.waitForStatus(m.meetingId, 'live', 30_000);
      await eventually(async () => (await warningsOnRecord()) === '[]', 'the warning cleared from the record');
      await w.stop(m.meetingId);
      await w.waitForStatus(m.meetingId, 'ended');
    });
  }
});
