/**
 * Meeting events through actor -> event log -> bus: 50 live meetings on a scripted platform,
 * meeting-session (registry and worker) with transcript-store, on the embedded store, first over
 * the in-process bus, then over a nats-server started here (when one is on PATH), then over NATS in
 * the production layout: transcript-store and the registry in a process of their own, the worker
 * and its actors here ("registry apart").
 *
 * Per bus, four runs:
 *   - saturation: captions as fast as the actors take them; events/s until all are published;
 *   - paced captions at 20,000 events/s, 200 callbacks together every 10 ms: p50/p99 from the
 *     driver's callback to the publish;
 *   - the same, "even": 20 callbacks every 1 ms, closer to bots whose updates reach the worker
 *     each on its own (one CDP message per socket read), and paying the per-request costs
 *     ten times as often;
 *   - paced mix at 20,000 events/s: 30 caption_partial to 1 segment_finalized (a turn of about 30
 *     words updates its caption once a word), the meetings' turns out of step with each other;
 *     each segment is stored through transcript-store before its event, same latency measure.
 * Target: >= 20,000 events/s and p99 < 5 ms on the embedded store and the memory bus.
 * `npx tsx test/bench/meetings.bench.ts`. Settings: MEETINGS_BENCH_RATE (events/s),
 * MEETINGS_BENCH_TICK_MS (pacing step, 10: rate/100 callbacks arrive together; the "even" captions
 * case always uses 1 ms, the finest a timer paces),
 * MEETINGS_BENCH_CASES (saturation,captions,even,mix), MEETINGS_BENCH_ROUNDS (3), MEETINGS_BENCH_NO_NATS,
 * BENCH_PROFILE=<dir>. Each row also shows the CPU steal of the machine during the run.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, connectBus, MemoryBroker, MemoryBus, type Bus } from '@notetaker/bus';
import { findNatsServerBinary, startNatsServer } from '@notetaker/bus/test-support';
import { routes, type EventEnvelope } from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/config';
import type { ServiceDefinition } from '@notetaker/service-runtime';
import { meetingSessionService } from '@notetaker/meeting-session';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { startInProcess, type InProcessService } from '../../services/meeting-session/test/support/in-process.js';
import { scriptedDriverFactory, type ScriptedMeeting } from '../support/scripted-driver.js';
import { cpuTimes, formatRow, stealShare, summarize, type LatencySummary } from './stats.js';
import { profiled } from './profile.js';

const MEETINGS = 50;
/** Events per second, all meetings together (MEETINGS_BENCH_RATE overrides, e.g. to find the knee). */
const PACED_RATE = Number(process.env.MEETINGS_BENCH_RATE ?? 20_000);
const PACED_SECONDS = 4;
const SATURATION_EVENTS = 100_000;
const TICK_MS = Number(process.env.MEETINGS_BENCH_TICK_MS ?? 10);
/** Rounds of each paced case; the median is the figure (one round swings with the machine's neighbours). */
const ROUNDS = Number(process.env.MEETINGS_BENCH_ROUNDS ?? 3);
/** One finalized segment per 30 caption updates (mix case). */
const CAPTIONS_PER_SEGMENT = 31;

/**
 * Callback times (performance.now()) waiting for their event, per meeting and kind. Each caption
 * or segment callback becomes exactly one event of its kind and a meeting's events are published
 * in order, so first in, first out; no per-event key to build on the measured thread.
 */
class SendTimes {
  private readonly queues = new Map<string, { times: number[]; head: number }>();

  add(meetingId: string, kind: 'caption_partial' | 'segment_finalized', at: number): void {
    const key = kind === 'caption_partial' ? meetingId : `${meetingId}|seg`;
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { times: [], head: 0 }));
    queue.times.push(at);
  }

  take(event: EventEnvelope): number | undefined {
    if (event.type !== 'caption_partial' && event.type !== 'segment_finalized') return undefined;
    const queue = this.queues.get(event.type === 'caption_partial' ? event.meetingId : `${event.meetingId}|seg`);
    if (!queue || queue.head === queue.times.length) return undefined;
    const at = queue.times[queue.head++];
    if (queue.head === queue.times.length) queue.times.length = queue.head = 0;
    return at;
  }
}

interface Setup {
  bots: ScriptedMeeting[];
  sent: SendTimes;
  latencies: number[];
  published: () => number;
  stop(): Promise<void>;
}

/**
 * `split`: the production layout over NATS. transcript-store and the registry run in a process of
 * their own (support/service-process.ts); this process hosts only the worker and its actors.
 */
async function setUp(natsUrl?: string, split = false): Promise<Setup> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'meetings-bench-'));
  const config = loadBaseConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    MAX_MEETINGS_PER_WORKER: String(MEETINGS),
    ...(natsUrl ? { NATS_URL: natsUrl } : {}),
    ...(split ? { MEETING_SESSION_ROLE: 'worker' } : {}),
  });
  const registryProcess = split ? await startRegistryProcess(natsUrl!, path.join(dataDir, 'registry')) : null;
  const bus: Bus = natsUrl
    ? await connectBus({ natsUrl, name: 'bench' })
    : new MemoryBus({ broker: new MemoryBroker() });
  const sent = new SendTimes();
  const latencies: number[] = [];
  let published = 0;
  const onPublished = (event: EventEnvelope) => {
    published++;
    const at = sent.take(event);
    if (at !== undefined) latencies.push(performance.now() - at);
  };
  const driver = scriptedDriverFactory();
  const started: InProcessService[] = [];
  const here = [transcriptStoreService(), meetingSessionService({ driverFactory: driver, onPublished })];
  for (const definition of (split ? here.slice(1) : here) as ServiceDefinition[]) {
    started.push(await startInProcess(definition, bus, config));
  }
  const bots: ScriptedMeeting[] = [];
  for (let i = 0; i < MEETINGS; i++) {
    const code = `${String.fromCharCode(97 + (i % 26))}bc-defg-h${String.fromCharCode(97 + Math.floor(i / 26))}j`;
    const { meetingId } = await call(bus, routes.meetings.start, {
      caller: { kind: 'token', tokenId: 'tok_bench', capabilities: ['knowledge:write'] },
      url: `https://meet.google.com/${code}`,
      title: `Bench ${i}`,
      callbackUrl: null,
      project: 'bench',
      saveTranscript: true,
    });
    const bot = await driver.meeting(meetingId);
    bot.participants(['Ada', 'Grace']);
    bots.push(bot);
  }
  await new Promise((resolve) => setTimeout(resolve, 500)); // joining, lobby, live, participants stored
  return {
    bots,
    sent,
    latencies,
    published: () => published,
    async stop() {
      for (const s of started.reverse()) await s.stop();
      await bus.close();
      await registryProcess?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startRegistryProcess(natsUrl: string, dataDir: string): Promise<{ stop(): Promise<void> }> {
  const script = path.join(import.meta.dirname, 'support', 'service-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      MEETING_SESSION_ROLE: 'registry',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    void exited.then(() => reject(new Error('the registry process exited before it was ready')));
  });
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('events were not all published in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** As fast as the actors take them: bursts of one caption per meeting, yielding between bursts. */
async function saturation(s: Setup): Promise<LatencySummary> {
  s.latencies.length = 0;
  const before = s.published();
  const t0 = performance.now();
  for (let n = 0; n < SATURATION_EVENTS / MEETINGS; n++) {
    for (const bot of s.bots) {
      const text = `sat ${n}`;
      s.sent.add(bot.target.meetingId, 'caption_partial', performance.now());
      bot.caption({ captionId: 'sat', speaker: 'Ada', text });
    }
    if (n % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
  }
  await until(() => s.published() - before >= SATURATION_EVENTS, 120_000);
  return summarize(s.latencies.splice(0), performance.now() - t0);
}

/** A fixed offered load: every 10 ms, rate/100 events spread over the meetings. */
async function paced(s: Setup, mix: boolean, tickMs = TICK_MS): Promise<LatencySummary> {
  s.latencies.length = 0;
  const perTick = (PACED_RATE * tickMs) / 1000;
  const ticks = (PACED_SECONDS * 1000) / tickMs;
  const before = s.published();
  let emitted = 0;
  let n = 0;
  const t0 = performance.now();
  for (let tick = 0; tick < ticks; tick++) {
    const due = t0 + tick * tickMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (let i = 0; i < perTick; i++, n++) {
      const m = n % MEETINGS;
      const bot = s.bots[m];
      // Each meeting's turns are offset by its index: independent meetings do not finish their
      // speakers' sentences in the same instant.
      const turn = Math.floor(n / MEETINGS) + m;
      const now = performance.now();
      if (mix && turn % CAPTIONS_PER_SEGMENT === CAPTIONS_PER_SEGMENT - 1) {
        const text = `Segment ${turn} of the bench.`;
        s.sent.add(bot.target.meetingId, 'segment_finalized', now);
        bot.segment({ speaker: 'Ada', text });
      } else {
        const captionId = `c${Math.floor(turn / CAPTIONS_PER_SEGMENT)}`;
        const text = `caption ${turn}`;
        s.sent.add(bot.target.meetingId, 'caption_partial', now);
        bot.caption({ captionId, speaker: 'Ada', text });
      }
      emitted++;
    }
  }
  await until(() => s.published() - before >= emitted, 60_000);
  return summarize(s.latencies.splice(0), performance.now() - t0);
}

/**
 * The figures plus this process's CPU time per event (user + system, all services in it): on a
 * machine shared with other work, wall-clock latency says more about the neighbours than about
 * us, CPU per event does not.
 */
async function report(label: string, run: () => Promise<LatencySummary>): Promise<LatencySummary> {
  const cpu = process.cpuUsage();
  const machine = cpuTimes();
  const summary = await profiled(label, run);
  const used = process.cpuUsage(cpu);
  const perEvent = (used.user + used.system) / summary.count;
  console.log(formatRow(label, summary, `  cpu ${perEvent.toFixed(1)} µs/event  ${stealShare(machine, cpuTimes())}`));
  return summary;
}

/** A paced case ROUNDS times (one row each), then the median of the rounds' figures. */
async function reportRounds(label: string, run: () => Promise<LatencySummary>): Promise<void> {
  const rounds: LatencySummary[] = [];
  for (let i = 1; i <= ROUNDS; i++) rounds.push(await report(`${label} #${i}`, run));
  const median = (pick: (s: LatencySummary) => number) => rounds.map(pick).sort((a, b) => a - b)[ROUNDS >> 1];
  const summary = {
    count: 0,
    perSecond: median((s) => s.perSecond),
    p50: median((s) => s.p50),
    p99: median((s) => s.p99),
  };
  console.log(formatRow(`${label}, median of ${ROUNDS}`, summary));
}

/** MEETINGS_BENCH_CASES=saturation,captions,even,mix picks cases (all by default), for profiling one. */
const CASES = new Set((process.env.MEETINGS_BENCH_CASES ?? 'saturation,captions,even,mix').split(','));

async function runAll(label: string, natsUrl?: string, split = false): Promise<void> {
  const s = await setUp(natsUrl, split);
  try {
    if (CASES.has('saturation')) await report(`${label}: saturation, captions`, () => saturation(s));
    if (CASES.has('captions')) await reportRounds(`${label}: paced ${PACED_RATE}/s, captions`, () => paced(s, false));
    if (CASES.has('even'))
      await reportRounds(`${label}: paced ${PACED_RATE}/s, captions, even`, () => paced(s, false, 1));
    if (CASES.has('mix'))
      await reportRounds(`${label}: paced ${PACED_RATE}/s, 30 captions : 1 segment`, () => paced(s, true));
  } finally {
    await s.stop();
  }
}

console.log(`meetings: ${MEETINGS} live meetings, scripted platform, embedded store`);
await runAll('memory bus');
const binary = process.env.MEETINGS_BENCH_NO_NATS ? undefined : findNatsServerBinary();
if (binary || process.env.NATS_URL) {
  const server = process.env.NATS_URL ? null : await startNatsServer(binary!);
  try {
    await runAll('NATS', process.env.NATS_URL ?? server!.url);
    await runAll('NATS, registry apart', process.env.NATS_URL ?? server!.url, true);
  } finally {
    await server?.stop();
  }
} else {
  console.log('NATS: skipped (no nats-server on PATH and NATS_URL not set)');
}
process.exit(0);
