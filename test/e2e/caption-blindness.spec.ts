/**
 * A platform changes its page and the bot can no longer read it, in real Chromium on both
 * simulated platforms: the simulator draws captions in a structure no reader knows, or offers no
 * way to turn captions on. The meeting must become visibly blind within CAPTION_BLIND_AFTER_MS
 * and a few seconds: `warnings` on its status, one warning log line, the metrics, and a snapshot
 * of the page's structure with no spoken word and no name in it. It keeps running and ends
 * normally when stopped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { growWords, type MeetingOptions } from '../simulators/index.js';
import { eventually } from '../support/wait.js';
import { PLATFORMS, useWorld, type StartedMeeting } from './support/world.js';

const BLIND_AFTER_MS = 3000;
const SAID = 'We should move the launch to the second week of March';

describe('whole stack in real Chromium: a bot that cannot read captions says so', function () {
  this.timeout(90_000);
  const world = useWorld({ CAPTION_BLIND_AFTER_MS: String(BLIND_AFTER_MS) });

  const warningsOf = async (m: StartedMeeting): Promise<string[] | undefined> => {
    const { meetings } = (await (await world().get('/meetings/status', m.token)).json()) as {
      meetings: Array<{ meetingId: string; warnings: string[] }>;
    };
    return meetings.find((x) => x.meetingId === m.meetingId)?.warnings;
  };
  const metricLine = async (name: string, labels: string) =>
    (await (await fetch(`${world().t.baseUrl}/metrics`)).text())
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  const snapshotsOf = (meetingId: string) => {
    const dir = path.join(world().t.dataDir, 'caption-snapshots');
    return fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => f.includes(meetingId))
          .map((f) => path.join(dir, f))
      : [];
  };

  /** Until the meeting's status carries `warning`; how long it took from `since`. */
  async function blindWithin(m: StartedMeeting, warning: string, since: number): Promise<number> {
    await eventually(
      async () => {
        const warnings = await warningsOf(m);
        // The warnings as last read are the failure's message.
        if (!warnings?.includes(warning)) throw new Error(`warnings: ${JSON.stringify(warnings)}`);
        return true;
      },
      `${warning} on ${m.meetingId}`,
      since + BLIND_AFTER_MS + 8000 - Date.now(),
    );
    return Date.now() - since;
  }

  async function liveMeeting(platform: (typeof PLATFORMS)[number]['platform'], meeting: Partial<MeetingOptions>) {
    const m = await world().start(platform, { meeting: { lobby: false, ...meeting } });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    return m;
  }

  async function endsNormally(m: StartedMeeting): Promise<void> {
    expect((await world().stop(m.meetingId, m.token)).status).to.equal(200);
    const ended = await world().waitForStatus(m.meetingId, 'ended');
    expect((ended.json as { payload: { reason: string } }).payload.reason).to.equal('stopped');
  }

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: captions in markup the reader does not know -> captions_unreadable, logged, counted, snapshotted`, async () => {
      const m = await liveMeeting(platform, { captionMarkup: 'unreadable' });
      const liveAt = Date.now();
      expect(await warningsOf(m)).to.deep.equal([]);
      // People talk on; the captions change all the time, and nothing can be read.
      const talking = (async () => {
        for (let i = 0; i < 4; i++) await m.sim.speak(i % 2 ? 'Bob Jones' : 'Alice Example', growWords(SAID), 120);
      })();
      const tookMs = await blindWithin(m, 'captions_unreadable', liveAt);
      console.log(`      ${label}: blind ${tookMs} ms after going live (CAPTION_BLIND_AFTER_MS ${BLIND_AFTER_MS})`);
      await talking;

      const logged = world()
        .t.warnings()
        .filter((l) => l.meetingId === m.meetingId && l.warning === 'captions_unreadable');
      expect(logged).to.have.length(1);
      expect(logged[0]).to.include({ platform });
      expect(String(logged[0].seen)).to.match(
        /^the caption area changed \d+ times in \d+ s and no caption text could be read$/,
      );

      expect(
        await metricLine('meeting_captions_blind', `platform="${platform}",warning="captions_unreadable"`),
      ).to.match(/ 1$/);
      expect(
        await metricLine(
          'meeting_caption_blind_episodes_total',
          `platform="${platform}",warning="captions_unreadable"`,
        ),
      ).to.match(/ [1-9]\d*$/);

      const [file, ...more] = snapshotsOf(m.meetingId);
      expect(more, 'one snapshot per episode').to.deep.equal([]);
      const text = fs.readFileSync(file, 'utf8');
      const snapshot = JSON.parse(text) as { warning: string; nodes: Array<{ tag: string; depth: number }> };
      expect(snapshot.warning).to.equal('captions_unreadable');
      expect(snapshot.nodes.length).to.be.above(1);
      for (const word of ['launch', 'March', 'Alice', 'Bob']) expect(text, word).to.not.contain(word);

      await endsNormally(m);
    });
  }

  it('Google Meet: no way to turn captions on -> captions_unavailable with a snapshot of the toolbar', async () => {
    const m = await liveMeeting('google_meet', { captionsAvailable: false });
    const tookMs = await blindWithin(m, 'captions_unavailable', Date.now());
    console.log(`      captions_unavailable after ${tookMs} ms`);
    const [file] = snapshotsOf(m.meetingId);
    const snapshot = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      nodes: Array<{ tag: string; attrs: Record<string, string> }>;
    };
    expect(snapshot.nodes.filter((n) => n.tag === 'button').length).to.be.at.least(4);
    expect(snapshot.nodes.some((n) => n.attrs['aria-label'] === 'Leave call')).to.equal(true);
    await endsNormally(m);
  });
});
