/**
 * Memory of live meetings, shared by the driver-memory and sign-in benches: `count` meetings on the
 * local platform simulators (Meet and Teams alternating), each admitted with a participant in,
 * captions on and spoken to, then PSS (/proc/<pid>/smaps_rollup) summed over every Chromium process.
 */
import { growWords, startSimulator, type SimPlatform } from '../../simulators/index.js';
import {
  browserProcesses,
  createDriverFactory,
  totalPssBytes,
  type DriverListener,
  type MeetingDriver,
} from '../../../services/meeting-session/src/drivers/index.js';

const SETTLE_MS = 3_000;

/** A listener that says nothing but a failure. */
const quiet: DriverListener = {
  lobby() {},
  admitted() {},
  caption() {},
  segment() {},
  participants() {},
  warning() {},
  signedIn() {},
  audio() {},
  audioFailed() {},
  audioSkipped() {},
  pcm() {},
  pcmFailed() {},
  looks() {},
  captionsOn() {},
  ended() {},
  failed(reason, detail) {
    console.error(`  a meeting failed: ${reason} ${detail ?? ''}`);
  },
};

export interface LiveMeetingsOptions {
  count: number;
  /** Four letters that keep this bench's meeting ids apart from another's. */
  tag: string;
  /** What Alice says in every meeting (grown to a caption's length). */
  words: string;
  /** The driver factory's layout; its default when left out. */
  meetingsPerBrowser?: number;
  /** Meetings refuse guests and each bot joins with a signed-in account of its own. */
  signedIn?: boolean;
}

export interface LiveMeetingsMemory {
  browsers: number;
  processes: number;
  totalBytes: number;
}

export async function liveMeetingsMemory(options: LiveMeetingsOptions): Promise<LiveMeetingsMemory> {
  const { count, tag, words, meetingsPerBrowser, signedIn = false } = options;
  const sim = await startSimulator();
  const factory = createDriverFactory({
    extraArgs: sim.hostResolverRules(),
    ...(meetingsPerBrowser === undefined ? {} : { meetingsPerBrowser }),
  });
  const drivers: MeetingDriver[] = [];
  try {
    const meetings = Array.from({ length: count }, (_, i) => {
      const platform: SimPlatform = i % 2 === 0 ? 'google_meet' : 'teams';
      const id = platform === 'google_meet' ? `mem-${tag}-${'abcdefghij'[i]}aa` : `19:meeting_${tag}${i}@thread.v2`;
      const meeting = sim.meeting(id, { lobby: false, guests: signedIn ? 'refused_screen' : 'allowed' });
      meeting.join('Alice Example');
      const account = signedIn ? sim.account(platform, `Bot ${i}`, `bot${i}@bots.example.com`) : null;
      return { platform, id, meeting, account };
    });
    for (const [i, { platform, id, account }] of meetings.entries()) {
      const driver = factory.create({
        platform,
        url: sim.url(platform, id),
        meetingId: `meeting_${tag}_${i}`,
        displayName: 'Notetaker',
        account: account && { name: account.name, storageState: account.storageState },
      });
      drivers.push(driver);
      await driver.start(quiet);
    }
    await Promise.all(meetings.map(({ meeting }) => meeting.waitForBot((bot) => bot.captionsOn, 60_000)));
    await Promise.all(meetings.map(({ meeting }) => meeting.speak('Alice Example', growWords(words), 40)));
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

    const browsers = factory.browsers();
    const pids = browsers.flatMap((browser) => (browser.pid ? browserProcesses(browser.pid) : []));
    return { browsers: browsers.length, processes: pids.length, totalBytes: totalPssBytes(pids) };
  } finally {
    await Promise.all(drivers.map((driver) => driver.leave()));
    await factory.close();
    await sim.close();
  }
}
