/**
 * Signed-in bots, against their guest peers measured in the same run:
 * - time to live: REST start to the `live` callback, through the whole stack and real Chromium on
 *   the simulators (no lobby). Guest: a meeting that lets guests in. Refused guest: `signIn: auto`
 *   in a meeting that refuses guests, so the guest is turned away and the bot joins again signed in.
 *   Median of 5 each, alternating, Meet and Teams.
 * - memory: PSS over every Chromium process (/proc/<pid>/smaps_rollup) with 4 live meetings in one
 *   browser, guests against signed-in bots (cookies and storage in each meeting's context).
 * `npx tsx test/bench/sign-in.bench.ts`
 */
import type { SimPlatform } from '../simulators/index.js';
import { startWorld, type World } from '../e2e/support/world.js';
import { percentile } from './stats.js';
import { liveMeetingsMemory } from './support/live-meetings.js';

const ROUNDS = 5;
const MEMORY_MEETINGS = 4;
const MB = 1024 * 1024;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

async function timeToLive(w: World, platform: SimPlatform, refused: boolean): Promise<number> {
  const startedAt = performance.now();
  const m = await w.start(platform, { meeting: { lobby: false, guests: refused ? 'refused_screen' : 'allowed' } });
  await w.waitForStatus(m.meetingId, 'live', 60_000);
  const ms = performance.now() - startedAt;
  await w.stop(m.meetingId);
  await w.waitForStatus(m.meetingId, 'ended', 60_000);
  return ms;
}

async function timings(): Promise<void> {
  const w = await startWorld();
  try {
    for (const platform of ['google_meet', 'teams'] as const) {
      const account = w.sim.account(platform, 'Bench Bot', `bench.${platform}@bots.example.com`);
      await w.t.stack.admin({
        command: 'bot-account.add',
        platform,
        name: `bench-${platform}`,
        session: JSON.stringify(account.storageState),
        maxMeetings: 5,
      });
      await timeToLive(w, platform, false); // warm-up: the browser launches
      const guest: number[] = [];
      const signedIn: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        guest.push(await timeToLive(w, platform, false));
        signedIn.push(await timeToLive(w, platform, true));
      }
      const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`;
      console.log(`${platform.padEnd(12)} start -> live, guest let in:               ${fmt(guest)}`);
      console.log(`${platform.padEnd(12)} start -> live, guest refused, signed in:   ${fmt(signedIn)}`);
    }
  } finally {
    await w.close();
  }
}

async function memory(signedIn: boolean): Promise<number> {
  const { totalBytes } = await liveMeetingsMemory({
    count: MEMORY_MEETINGS,
    tag: 'sign',
    words: 'what a signed in meeting costs',
    signedIn,
  });
  return totalBytes / MEMORY_MEETINGS;
}

await timings();
const guestMb = (await memory(false)) / MB;
const signedMb = (await memory(true)) / MB;
console.log(
  `memory per live meeting (${MEMORY_MEETINGS} in one browser): guest ${guestMb.toFixed(1)} MB, signed in ${signedMb.toFixed(1)} MB`,
);
