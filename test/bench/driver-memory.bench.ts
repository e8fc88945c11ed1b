/**
 * Memory per live meeting of the puppeteer drivers: PSS (/proc/<pid>/smaps_rollup, shared pages
 * split among their users) summed over every Chromium process, divided by the meetings, for 1 and 5
 * concurrent meetings on the local platform simulators (Meet and Teams alternating), in the two
 * layouts the drivers can run: one browser per worker with a context per meeting (the default), and
 * one browser per meeting. Each meeting is live: admitted, a participant in, captions on and spoken.
 * Target: under 150 MB per meeting. `npx tsx test/bench/driver-memory.bench.ts`
 */
import { growWords, startSimulator, type SimPlatform } from '../simulators/index.js';
import {
  browserProcesses,
  createDriverFactory,
  totalPssBytes,
  type DriverListener,
  type MeetingDriver,
} from '../../services/meeting-session/src/drivers/index.js';

const COUNTS = [1, 5];
const SETTLE_MS = 3_000;
const MB = 1024 * 1024;

const quiet: DriverListener = {
  lobby() {},
  admitted() {},
  caption() {},
  segment() {},
  participants() {},
  warning() {},
  signedIn() {},
  ended() {},
  failed(reason, detail) {
    console.error(`  a meeting failed: ${reason} ${detail ?? ''}`);
  },
};

interface Layout {
  label: string;
  meetingsPerBrowser: number;
}

async function measure(layout: Layout, count: number): Promise<void> {
  const sim = await startSimulator();
  const factory = createDriverFactory({
    extraArgs: sim.hostResolverRules(),
    meetingsPerBrowser: layout.meetingsPerBrowser,
  });
  const drivers: MeetingDriver[] = [];
  try {
    const meetings = Array.from({ length: count }, (_, i) => {
      const platform: SimPlatform = i % 2 === 0 ? 'google_meet' : 'teams';
      const id = platform === 'google_meet' ? `mem-bnch-${'abcdefghij'[i]}aa` : `19:meeting_bench${i}@thread.v2`;
      const meeting = sim.meeting(id, { lobby: false });
      meeting.join('Alice Example');
      return { platform, id, meeting };
    });
    for (const [i, { platform, id }] of meetings.entries()) {
      const driver = factory.create({
        platform,
        url: sim.url(platform, id),
        meetingId: `meeting_bench_${i}`,
        displayName: 'Notetaker',
      });
      drivers.push(driver);
      await driver.start(quiet);
    }
    await Promise.all(meetings.map(({ meeting }) => meeting.waitForBot((bot) => bot.captionsOn, 60_000)));
    await Promise.all(
      meetings.map(({ meeting }) =>
        meeting.speak('Alice Example', growWords('so this is what a live meeting costs in memory'), 40),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

    const browsers = factory.browsers();
    const pids = browsers.flatMap((browser) => (browser.pid ? browserProcesses(browser.pid) : []));
    const total = totalPssBytes(pids);
    console.log(
      `${layout.label.padEnd(36)} ${String(count).padStart(2)} meeting(s)  ` +
        `${browsers.length} browser(s), ${String(pids.length).padStart(3)} processes  ` +
        `total ${(total / MB).toFixed(1).padStart(7)} MB  per meeting ${(total / count / MB).toFixed(1).padStart(6)} MB`,
    );
  } finally {
    await Promise.all(drivers.map((driver) => driver.leave()));
    await factory.close();
    await sim.close();
  }
}

const layouts: Layout[] = [
  { label: 'one browser, a context per meeting', meetingsPerBrowser: 100 },
  { label: 'one browser per meeting', meetingsPerBrowser: 1 },
];
for (const layout of layouts) {
  for (const count of COUNTS) await measure(layout, count);
}
