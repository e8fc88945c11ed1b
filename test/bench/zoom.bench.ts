/**
 * Zoom against the other two platforms, through the whole product (the real stack in this process,
 * the real drivers in real Chromium against the simulators, a local callback receiver):
 *
 * 1. Start -> live: from the POST /meetings/start to the receiver holding the signed
 *    `meeting_status` `live`, one meeting at a time (no waiting room), STARTS per platform; the
 *    median and the spread. Zoom's path is longer: the launch page, the web client, the preview.
 * 2. Start -> live per Zoom pre-join variant (ZOOM_PREJOIN_VARIANTS: ids, placeholder, label,
 *    dialogs, terms, iframe, redirects), STARTS a variant, one at a time; the median and the spread.
 *    Every pre-join asks for the passcode here (the start gives it), so the field is typed too.
 * 3. Caption latency at load: ZOOM_MEETINGS Zoom meetings beside OTHERS Meet and OTHERS Teams
 *    meetings in one run, each speaking a new word every STEP_MS (staggered); from the simulator
 *    changing a caption to the receiver holding the signed `caption_partial` with that text, per
 *    platform. Zoom's overlay shows an avatar without the name on some builds, so its reading
 *    also waits for the full transcript panel to name the speaker.
 *
 * `npx tsx test/bench/zoom.bench.ts [starts=5] [zoomMeetings=10] [others=2] [changes=60] [stepMs=200]`
 */
import type { EventEnvelope } from '@notetaker/contracts';
import { chromiumMissing, sleep, startWorld, type StartedMeeting, type World } from '../e2e/support/world.js';
import { verifySignature, type ReceivedCallback } from '../support/callback-receiver.js';
import {
  seedWithZoomChoices,
  ZOOM_PREJOIN_VARIANTS,
  type MeetingOptions,
  type SimPlatform,
} from '../simulators/index.js';
import { percentile } from './stats.js';

const STARTS = Number(process.argv[2] ?? 5);
const ZOOM_MEETINGS = Number(process.argv[3] ?? 10);
const OTHERS = Number(process.argv[4] ?? 2);
const CHANGES = Number(process.argv[5] ?? 60);
const STEP_MS = Number(process.argv[6] ?? 200);
const WORDS_PER_TURN = 12;
const PLATFORMS: SimPlatform[] = ['zoom', 'google_meet', 'teams'];

/** `${meetingId} ${text}` -> when the simulator showed it; and each meeting's latencies. */
const pending = new Map<string, number>();
const latencies = new Map<string, number[]>();
let signingSecret = '';
let badSignatures = 0;

function onCallback(c: ReceivedCallback): void {
  if (c.eventType !== 'caption_partial' || !signingSecret) return;
  if (!verifySignature(signingSecret, c.rawBody, String(c.headers['x-service-signature']))) {
    badSignatures++;
    return;
  }
  const key = `${c.meetingId} ${String((c.json as EventEnvelope).payload.text)}`;
  const shownAt = pending.get(key);
  if (shownAt === undefined) return;
  pending.delete(key);
  const mine = latencies.get(String(c.meetingId)) ?? [];
  mine.push(c.receivedAt - shownAt);
  latencies.set(String(c.meetingId), mine);
}

const fixed = (value: number) => value.toFixed(0).padStart(6);
const sortedOf = (values: number[]) => [...values].sort((a, b) => a - b);

async function startToLive(
  world: World,
  platform: SimPlatform,
  meeting: Partial<MeetingOptions> = {},
  request: Record<string, unknown> = {},
): Promise<number> {
  const startedAt = performance.now();
  const m = await world.start(platform, { meeting: { lobby: false, ...meeting }, request });
  await world.waitForStatus(m.meetingId, 'live', 60_000);
  const took = performance.now() - startedAt;
  await world.stop(m.meetingId);
  await world.waitForStatus(m.meetingId, 'ended');
  return took;
}

/** One speaker after another, a word every STEP_MS, CHANGES caption changes in all. */
async function talk(m: StartedMeeting, index: number, offsetMs: number): Promise<void> {
  await sleep(offsetMs);
  let shown = 0;
  for (let turnNo = 0; shown < CHANGES; turnNo++) {
    const turn = m.sim.caption(turnNo % 2 ? 'Bob Jones' : 'Alice Example');
    const words: string[] = [];
    for (let w = 0; w < WORDS_PER_TURN && shown < CHANGES; w++, shown++) {
      words.push(w === 0 ? `m${index}t${turnNo}` : `word${w}`);
      const text = words.join(' ');
      const at = performance.now();
      pending.set(`${m.meetingId} ${text}`, at);
      turn.show(text);
      await sleep(Math.max(0, STEP_MS - (performance.now() - at)));
    }
  }
}

async function main(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  // The receiver's clock is performance.now() too (callback-receiver.ts), so both ends are one clock.
  // Seats for every meeting of the load phase (10 a worker by default).
  const seats = String(ZOOM_MEETINGS + 2 * OTHERS);
  const world = await startWorld(
    { MAX_MEETING_DURATION_MS: '600000', MAX_MEETINGS_PER_WORKER: seats },
    { receiver: { onCallback } },
  );
  signingSecret = world.token.signingSecret;
  try {
    console.log(`start -> live, ${STARTS} a platform, one at a time (ms):`);
    for (const platform of PLATFORMS) {
      await startToLive(world, platform); // a first start warms the browser and the pages' code
      const times: number[] = [];
      for (let i = 0; i < STARTS; i++) times.push(await startToLive(world, platform));
      const sorted = sortedOf(times);
      console.log(
        `  ${platform.padEnd(12)} median ${fixed(percentile(sorted, 50))}  min ${fixed(sorted[0])}  max ${fixed(sorted.at(-1)!)}`,
      );
    }

    console.log(`start -> live per Zoom pre-join variant, ${STARTS} each, one at a time (ms):`);
    for (const [name, pinned] of ZOOM_PREJOIN_VARIANTS) {
      const meeting = { passcode: 'Bn42', markupSeed: seedWithZoomChoices(pinned, 20_000) };
      const times: number[] = [];
      for (let i = 0; i < STARTS; i++) times.push(await startToLive(world, 'zoom', meeting, { passcode: 'Bn42' }));
      const sorted = sortedOf(times);
      console.log(
        `  ${name.padEnd(36)} median ${fixed(percentile(sorted, 50))}  min ${fixed(sorted[0])}  max ${fixed(sorted.at(-1)!)}`,
      );
    }

    const platforms: SimPlatform[] = [
      ...Array<SimPlatform>(ZOOM_MEETINGS).fill('zoom'),
      ...Array<SimPlatform>(OTHERS).fill('google_meet'),
      ...Array<SimPlatform>(OTHERS).fill('teams'),
    ];
    const meetings = await Promise.all(platforms.map((p) => world.start(p, { meeting: { lobby: false } })));
    for (const m of meetings) m.sim.join('Alice Example');
    await Promise.all(meetings.map((m) => world.waitForStatus(m.meetingId, 'live', 120_000)));
    await Promise.all(meetings.map((m) => m.sim.waitForBot((bot) => bot.captionsOn, 120_000)));
    await sleep(2_000); // Zoom's transcript panel opens after captions
    console.log(
      `caption change -> signed caption_partial, ${ZOOM_MEETINGS} Zoom + ${OTHERS} Meet + ${OTHERS} Teams, ${CHANGES} changes each, a word every ${STEP_MS} ms (ms):`,
    );
    await Promise.all(meetings.map((m, i) => talk(m, i, Math.round((i * STEP_MS) / meetings.length))));
    await sleep(3_000);
    for (const platform of PLATFORMS) {
      const mine = meetings.filter((m) => m.platform === platform);
      const all = sortedOf(mine.flatMap((m) => latencies.get(m.meetingId) ?? []));
      const expected = mine.length * CHANGES;
      if (all.length === 0) {
        console.log(`  ${platform.padEnd(12)} no caption arrived`);
        continue;
      }
      console.log(
        `  ${platform.padEnd(12)} p50 ${fixed(percentile(all, 50))}  p90 ${fixed(percentile(all, 90))}  p99 ${fixed(percentile(all, 99))}  max ${fixed(all.at(-1)!)}  (${all.length} of ${expected} changes seen${badSignatures ? `, ${badSignatures} bad signatures` : ''})`,
      );
    }
    await Promise.all(meetings.map((m) => world.stop(m.meetingId)));
    await Promise.all(meetings.map((m) => world.waitForStatus(m.meetingId, 'ended', 60_000)));
  } finally {
    await world.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
