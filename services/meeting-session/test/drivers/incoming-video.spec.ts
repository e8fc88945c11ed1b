/**
 * Incoming video and BOT_VIDEO_SAVINGS (src/drivers/video): in meetings where four participants
 * have their camera on (the simulator's media server sends each as VP8 into the bot's page, shown
 * in their tiles), the bot with each step alone and all of them must still read every caption turn
 * with its speaker and the participants, and receive what the step promises: the platform's own
 * step leaves Teams and Zoom sending nothing and Meet only its smallest layout's tile; `inactive`
 * and all steps together leave the page decoding no frame at all. Without any step the page decodes
 * every camera (the simulator's cameras really arrive). The figures a step saves are the bench's
 * (test/bench/cameras.bench.ts).
 */
import { expect } from 'chai';
import {
  videoTruth,
  type SimMeeting,
  type SimPlatform,
  type VideoSessionTruth,
} from '../../../../test/simulators/index.js';
import { createDriverFactory, type PuppeteerDriverFactory } from '../../src/drivers/index.js';
import type { VideoSaving } from '../../src/drivers/video/index.js';
import { expectTurnsRead, joinSimulated, RecordingListener } from './helpers.js';
import { startSimulator, type Simulator } from '../../../../test/simulators/index.js';
import { eventually, sleep } from '../../../../test/support/wait.js';

const CAMERAS = ['Ann Lee', 'Ben Ode', 'Cy Park', 'Dee Roe'];
const CASES: Array<{ label: string; savings: VideoSaving[] }> = [
  { label: 'no step', savings: [] },
  { label: 'platform', savings: ['platform'] },
  { label: 'hide', savings: ['hide'] },
  { label: 'inactive', savings: ['inactive'] },
  { label: 'all steps', savings: ['platform', 'hide', 'inactive'] },
];
const PLATFORMS: Array<[SimPlatform, string]> = [
  ['google_meet', 'Meet'],
  ['teams', 'Teams'],
  ['zoom', 'Zoom'],
];
/** Long enough for a few of the page's 2 s reports after the step took effect. */
const SETTLE_MS = 6_000;

let meetings = 0;
function newId(platform: SimPlatform): string {
  meetings++;
  if (platform === 'google_meet')
    return `vid-${'abcdefghij'[meetings % 10]}cam-${'klmnopqrst'[Math.floor(meetings / 10) % 10]}xy`;
  return String(8100000000 + meetings);
}

/** The page's newest video session (the one of its call screen). */
async function session(meeting: SimMeeting): Promise<VideoSessionTruth> {
  let found: VideoSessionTruth | undefined;
  await eventually(
    async () => {
      found = (await videoTruth(meeting)).filter((s) => !s.closed).at(-1);
      return found !== undefined;
    },
    'a video session of the bot page',
    15_000,
  );
  return found!;
}

describe('incoming video: cameras on, the bot decodes only what its steps leave', function () {
  this.timeout(120_000);
  let sim: Simulator;
  const factories = new Map<string, PuppeteerDriverFactory>();
  before(async () => {
    sim = await startSimulator();
  });
  after(async () => {
    for (const f of factories.values()) await f.close();
    await sim?.close();
  });
  const factoryFor = (c: (typeof CASES)[number]) => {
    let f = factories.get(c.label);
    if (!f) {
      f = createDriverFactory({ extraArgs: sim.hostResolverRules(), pollIntervalMs: 150, videoSavings: c.savings });
      factories.set(c.label, f);
    }
    return f;
  };

  for (const [platform, name] of PLATFORMS) {
    for (const c of CASES) {
      it(`${name}, ${c.label}: captions, speakers and participants read; video as the step promises`, async () => {
        const id = newId(platform);
        const meeting = sim.meeting(id, { lobby: false, cameras: CAMERAS.length, cameraFps: 15 });
        for (const person of CAMERAS) meeting.join(person);
        const { listener, driver } = await joinSimulated({ sim, factory: factoryFor(c) }, platform, id, {
          meetingId: `meeting_v${meetings}`,
        });
        try {
          await meeting.waitForBot((bot) => bot.captionsOn);
          await listener.until(
            () => CAMERAS.every((p) => listener.rosters.at(-1)?.includes(p)),
            'the four participants in the roster',
          );
          await expectTurnsRead(meeting, listener, [
            { speaker: 'Ann Lee', heard: 'good morning every one', said: 'Good morning, everyone.' },
            { speaker: 'Ben Ode', heard: 'the cameras are all on today' },
          ]);
          await sleep(SETTLE_MS);
          const s = await session(meeting);
          expect(s.cameras, 'the cameras the page was offered').to.deep.equal(CAMERAS);
          await expectVideo(meeting, platform, c.savings, listener);
        } finally {
          await driver.leave();
        }
      });
    }
  }
});

/** What reached the page over a few seconds, against what the steps promise. */
async function expectVideo(
  meeting: SimMeeting,
  platform: SimPlatform,
  savings: VideoSaving[],
  listener: RecordingListener,
): Promise<void> {
  const before = await session(meeting);
  await sleep(4_000);
  const after = await session(meeting);
  const decoded = after.framesDecoded - before.framesDecoded;
  const encoded = (after.sent?.framesEncoded ?? 0) - (before.sent?.framesEncoded ?? 0);
  const what = `${platform} ${savings.join('+') || 'none'}: decoded ${decoded}, sent ${encoded} frames in 4 s; events ${listener.events.slice(-3).join(',')}`;
  if (savings.includes('inactive')) {
    expect(decoded, what).to.equal(0);
    expect(encoded, what).to.equal(0);
    return;
  }
  if (savings.includes('platform')) {
    // Teams and Zoom: incoming video off; Meet: the layout's one tile besides the bot's own.
    expect(after.subscribed, what).to.equal(platform === 'google_meet' ? 1 : 0);
    if (platform !== 'google_meet') expect(decoded, what).to.equal(0);
    else
      expect(decoded, what)
        .to.be.greaterThan(0)
        .and.at.most(4 * 30);
    return;
  }
  // No step, or only `hide`: every camera decoded (four at 15 fps, on a busy machine fewer).
  expect(after.subscribed, what).to.equal(4);
  expect(decoded, what).to.be.greaterThan(4 * 15);
}
