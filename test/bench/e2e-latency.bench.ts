/**
 * Live caption latency through the whole product, and what a live meeting costs in memory.
 *
 * The real stack runs in this process with the real puppeteer drivers in real Chromium against the
 * Meet / Teams simulator; the callback receiver is a local HTTP server. Latency is timed on one
 * clock from the simulator changing a caption (the moment it pushes the new text to the bot's page)
 * to the receiver holding the signed `caption_partial` with that text: the page's DOM change, the
 * driver reading it, the actor storing the event, the webhook emitter signing and POSTing it. Two
 * intermediate points are shown apart: the driver reporting the caption to the meeting actor (the
 * real driver factory, observed through a pass-through listener), and the event's publication on
 * the bus (after the actor stored it).
 *
 * Memory: PSS (/proc/<pid>/smaps_rollup, shared pages split among their users) summed over every
 * Chromium process of the stack, sampled while the meetings are live and talking, divided by the
 * number of meetings.
 *
 * Runs: 1 meeting (Meet), then 10 concurrent meetings (5 Meet, 5 Teams), each speaking a new word
 * every STEP_MS, staggered so the changes of the 10 meetings are spread rather than in lockstep.
 * Targets: p99 < 150 ms at 10 meetings; < 150 MB per meeting.
 * `npx tsx test/bench/e2e-latency.bench.ts [changesPerMeeting] [stepMs]`
 *
 * `... [changes] [stepMs] coach` (or BENCH_COACH=1) measures what the model coach adds to the caption path instead:
 * one round of 10 meetings, half of them with `coach: "ai"` against a fake OpenAI-compatible
 * model (test/support/fake-llm.ts: a call every COACH_INTERVAL_MS=1000 per meeting, answered
 * after 300 ms with two insights), half with `coach: "off"`, side by side in the same stack, the
 * latency reported per half.
 */
import os from 'node:os';
import { evtMeeting, type EventEnvelope } from '@notetaker/contracts';
import { totalPssBytes, type DriverFactory } from '../../services/meeting-session/src/drivers/index.js';
import { chromiumProcesses } from '../e2e/support/chromium.js';
import {
  chromiumMissing,
  sleep,
  startWorld,
  type StartedMeeting,
  type Token,
  type World,
} from '../e2e/support/world.js';
import { verifySignature, type ReceivedCallback } from '../support/callback-receiver.js';
import type { SimPlatform } from '../simulators/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { percentile } from './stats.js';
import { observedDrivers } from './support/observed-drivers.js';

const CHANGES = Number(process.argv[2] ?? 150);
const STEP_MS = Number(process.argv[3] ?? 150);
const COACH_MODE = process.argv[4] === 'coach' || process.env.BENCH_COACH === '1';
const WORDS_PER_TURN = 15;
const MB = 1024 * 1024;
const VOCABULARY = 'we should ship the release on friday after the review and the tests pass on every platform'.split(
  ' ',
);

interface Pending {
  shownAt: number;
  driverAt?: number;
  busAt?: number;
}

interface Run {
  /** `${meetingId} ${text}` -> when the simulator showed it (and when the driver and the bus had it). */
  pending: Map<string, Pending>;
  toDriver: number[];
  toBus: number[];
  /** The stages apart, per caption: driver -> bus (the actor, its event-log write), bus -> receiver (the emitter). */
  inActor: number[];
  inEmitter: number[];
  badSignatures: number;
  /** Change -> receiver, per meeting (all of them together: the figure; grouped: the coach comparison). */
  byMeeting: Map<string, number[]>;
}

let run: Run | null = null;
let token: Token | null = null;

function onCallback(c: ReceivedCallback): void {
  if (!run || c.eventType !== 'caption_partial' || !token) return;
  if (!verifySignature(token.signingSecret, c.rawBody, String(c.headers['x-service-signature']))) {
    run.badSignatures++;
    return;
  }
  const text = (c.json as EventEnvelope).payload.text;
  const key = `${c.meetingId} ${String(text)}`;
  const entry = run.pending.get(key);
  if (!entry) return;
  run.pending.delete(key);
  const mine = run.byMeeting.get(String(c.meetingId)) ?? [];
  mine.push(c.receivedAt - entry.shownAt);
  run.byMeeting.set(String(c.meetingId), mine);
  if (entry.driverAt !== undefined) run.toDriver.push(entry.driverAt - entry.shownAt);
  if (entry.busAt !== undefined) run.toBus.push(entry.busAt - entry.shownAt);
  if (entry.driverAt !== undefined && entry.busAt !== undefined) run.inActor.push(entry.busAt - entry.driverAt);
  if (entry.busAt !== undefined) run.inEmitter.push(c.receivedAt - entry.busAt);
}

/** The real driver factory, with each caption the driver reports timed on its way to the actor. */
const timedDrivers = (real: DriverFactory) =>
  observedDrivers(real, (target, actor) => ({
    caption: (update) => {
      const entry = run?.pending.get(`${target.meetingId} ${update.text}`);
      if (entry) entry.driverAt ??= performance.now();
      actor.caption(update);
    },
  }));

const ms = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1).padStart(6);

/** One speaker after another, a word every STEP_MS, `changes` caption changes in all. */
async function talk(world: World, m: StartedMeeting, index: number, changes: number, offsetMs: number): Promise<void> {
  await sleep(offsetMs);
  const speakers = ['Alice Example', 'Bob Jones'];
  let shown = 0;
  for (let turnNo = 0; shown < changes; turnNo++) {
    const turn = m.sim.caption(speakers[turnNo % 2]);
    const words: string[] = [];
    for (let w = 0; w < WORDS_PER_TURN && shown < changes; w++, shown++) {
      // Unique per meeting and change, so each partial names the change it answers.
      words.push(w === 0 ? `m${index}t${turnNo}` : VOCABULARY[(w + turnNo) % VOCABULARY.length]);
      const text = words.join(' ');
      const started = performance.now();
      run!.pending.set(`${m.meetingId} ${text}`, { shownAt: started });
      turn.show(text);
      await sleep(Math.max(0, STEP_MS - (performance.now() - started)));
    }
  }
}

function pssPerMeetingMb(meetings: number): number {
  return totalPssBytes(chromiumProcesses()) / meetings / MB;
}

/** Coach comparison: meetings 0, 3, 4, 7, 8 coached by the model (Meet and Teams in each half). */
const coachOf = (i: number): 'ai' | 'off' => ([0, 3].includes(i % 4) ? 'ai' : 'off');

async function measure(world: World, count: number, fake: FakeLlm | null = null): Promise<void> {
  const platforms: SimPlatform[] = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? 'google_meet' : 'teams'));
  const meetings = await Promise.all(
    platforms.map((platform, i) =>
      world.start(platform, {
        meeting: { lobby: false },
        ...(fake && { title: `coach ${coachOf(i)}`, request: { coach: coachOf(i) } }),
      }),
    ),
  );
  for (const m of meetings) m.sim.join('Alice Example');
  await Promise.all(meetings.map((m) => m.sim.waitForBot((bot) => bot.captionsOn, 90_000)));
  await Promise.all(meetings.map((m) => world.waitForStatus(m.meetingId, 'live', 90_000)));
  await sleep(1_000);

  run = {
    pending: new Map(),
    toDriver: [],
    toBus: [],
    inActor: [],
    inEmitter: [],
    badSignatures: 0,
    byMeeting: new Map(),
  };
  const callsBefore = fake?.requests.length ?? 0;
  const load = os.loadavg()[0];
  const memory: number[] = [];
  const sampler = setInterval(() => memory.push(pssPerMeetingMb(count)), 2_000);
  const started = performance.now();
  await Promise.all(meetings.map((m, i) => talk(world, m, i, CHANGES, (i * STEP_MS) / count)));
  await sleep(1_000);
  clearInterval(sampler);
  const wall = performance.now() - started;
  const done = run;
  run = null;

  const shown = count * CHANGES;
  const sort = (values: number[]) => [...values].sort((a, b) => a - b);
  const [sorted, driver, bus, memSorted] = [
    sort([...done.byMeeting.values()].flat()),
    sort(done.toDriver),
    sort(done.toBus),
    sort(memory),
  ];
  console.log(
    `${String(count).padStart(2)} meeting(s)  ${sorted.length}/${shown} partials timed (${done.pending.size} coalesced or lost, ` +
      `${done.badSignatures} bad signatures) in ${(wall / 1000).toFixed(1)} s, load average ${load.toFixed(2)} -> ${os.loadavg()[0].toFixed(2)}`,
  );
  const row = (label: string, values: number[]) =>
    console.log(
      `   ${label.padEnd(46)} p50 ${ms(values, 50)} ms  p99 ${ms(values, 99)} ms  max ${values.at(-1)?.toFixed(1).padStart(6)} ms`,
    );
  row('change -> driver reports it to the actor', driver);
  row('change -> event stored and on the bus', bus);
  row('change -> signed caption_partial at receiver', sorted);
  row('  of which driver -> bus (actor, event log)', sort(done.inActor));
  row('  of which bus -> receiver (webhook emitter)', sort(done.inEmitter));
  if (fake) {
    for (const coach of ['off', 'ai'] as const) {
      const ids = meetings.filter((_, i) => coachOf(i) === coach).map((m) => m.meetingId);
      row(
        `coach ${coach.padEnd(3)} (${ids.length} meetings): change -> receiver`,
        sort(ids.flatMap((id) => done.byMeeting.get(id) ?? [])),
      );
    }
    const insights = meetings.map(
      (m) => world.callbacks(m.meetingId).filter((c) => c.eventType === 'coach_insight').length,
    );
    const sum = (coach: 'ai' | 'off') => insights.filter((_, i) => coachOf(i) === coach).reduce((a, b) => a + b, 0);
    console.log(
      `   model coach: ${fake.requests.length - callsBefore} model calls; coach_insight callbacks: ${sum('ai')} from the ai half, ${sum('off')} from the off half`,
    );
  }
  console.log(
    `   memory per live meeting (Chromium PSS)         median ${percentile(memSorted, 50).toFixed(1)} MB  ` +
      `max ${memSorted.at(-1)?.toFixed(1)} MB  (${chromiumProcesses().length} Chromium processes)`,
  );

  await Promise.all(meetings.map((m) => world.stop(m.meetingId)));
  await Promise.all(meetings.map((m) => world.waitForStatus(m.meetingId, 'ended', 60_000)));
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
} else {
  const fake = COACH_MODE ? await startFakeLlm() : null;
  const fresh = () => Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 8)).join(' ');
  fake?.respond(() => ({
    delayMs: 300,
    usage: { prompt: 1500, completion: 120 },
    answer: JSON.stringify({
      summary: 'The team plans the release for Friday once the review and the tests pass.',
      // New words each time, so the coach sends them (a repeated point would be dropped).
      insights: [
        { category: 'decision', message: `Release on Friday: ${fresh()}.`, speaker: null, segments: [] },
        { category: 'action_item', message: `No owner for ${fresh()}.`, speaker: null, segments: [] },
      ],
    }),
  }));
  const world = await startWorld(
    { MAX_MEETINGS_PER_WORKER: '10', ...(fake ? { ...fake.env(), COACH_INTERVAL_MS: '1000' } : {}) },
    { receiver: { onCallback }, wrapDrivers: timedDrivers },
  );
  try {
    token = world.token;
    world.t.stack.bus.subscribe(evtMeeting('*', 'caption_partial'), (data) => {
      const event = data as EventEnvelope;
      const entry = run?.pending.get(`${event.meetingId} ${String(event.payload.text)}`);
      if (entry) entry.busAt ??= performance.now();
    });
    console.log(
      `caption changes: ${CHANGES} per meeting, one every ${STEP_MS} ms per meeting; ${os.cpus().length} CPUs`,
    );
    if (fake) await measure(world, 10, fake);
    else for (const count of [1, 10]) await measure(world, count);
  } finally {
    await world.close();
    await fake?.close();
  }
}
