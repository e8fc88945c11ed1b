/**
 * Tasks at scale. Part 1: the task-scheduler as its own process (compiled, with the NODE_OPTIONS
 * docker-compose.yml gives it, NATS, embedded store), 10,000 tasks firing every minute, spread
 * over 20 time zones and three spellings of "every minute"; for each of 1-5 minute boundaries: the
 * ticks started and skipped (the service's counters), how late each tick started its execution
 * (startedAt - tick, from the tasks' lastRunAt), how late its running record was stored (the
 * service's histogram), how long until every run finished, and the process's memory (PSS from
 * /proc; the PSS after each boundary shows whether memory grows with history). Part 2: REST
 * request rates through the gateway (in-process stack): create, list, history.
 * Peer: the `cron` package alone with as many CronJobs (cron-peer.mjs), its memory and lateness
 * printed beside the scheduler's, with the ratios.
 * Targets: tick lateness p99 < 250 ms and PSS peak < 150 MB with 10,000 tasks. Runs ~5 minutes.
 * `npx tsx test/bench/tasks.bench.ts` (TASKS_BENCH_TASKS, TASKS_BENCH_BOUNDARIES=1..5,
 * TASKS_BENCH_NODE_OPTIONS to compare other launch options, TASKS_BENCH_PART=scheduler|rest,
 * TASKS_BENCH_SOURCE=1 to run it through tsx)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parse } from 'yaml';
import { call, connectNatsBus, type Bus } from '@notetaker/bus';
import { findNatsServerBinary, freePort, startNatsServer } from '@notetaker/bus/test-support';
import { routes, type Task } from '@notetaker/contracts';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startTestStack } from '../support/stack.js';
import { formatRow, percentile, runWindowed } from './stats.js';

const TASKS = Number(process.env.TASKS_BENCH_TASKS ?? 10_000);
const BOUNDARIES = Math.min(5, Math.max(1, Number(process.env.TASKS_BENCH_BOUNDARIES ?? 2)));
/** `scheduler` or `rest` runs only that part. */
const PART = process.env.TASKS_BENCH_PART ?? 'all';
/** 1: run the scheduler from its TypeScript through tsx instead of the compiled build. */
const FROM_SOURCE = process.env.TASKS_BENCH_SOURCE === '1';
const ZONES = [
  'UTC',
  'Europe/Paris',
  'Europe/London',
  'America/New_York',
  'America/Los_Angeles',
  'America/Sao_Paulo',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Adelaide',
  'Africa/Lagos',
  'Europe/Moscow',
  'Asia/Singapore',
  'Pacific/Auckland',
  'America/Chicago',
  'Asia/Dubai',
  'Europe/Berlin',
  'America/Toronto',
  'Asia/Shanghai',
  'America/St_Johns',
];
const EVERY_MINUTE = ['* * * * *', '*/1 * * * *', '0-59 * * * *'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;

function memoryKb(pid: number): { pss: number; rss: number } {
  const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { pss: field('Pss'), rss: field('Rss') };
}

async function listAll(bus: Bus): Promise<Task[]> {
  const all: Task[] = [];
  let after: string | undefined;
  do {
    const page = await call(bus, routes.tasks.list, { after, limit: 1000 }, { timeoutMs: 30_000 });
    all.push(...page.tasks);
    after = page.next ?? undefined;
  } while (after);
  return all;
}

/** p50/p99 (ms) from the change of a Prometheus histogram between two scrapes (bucket upper bounds). */
function histogramQuantiles(
  before: Map<number, number>,
  after: Map<number, number>,
): { p50: number; p99: number; count: number } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = bounds.map((le) => (after.get(le) ?? 0) - (before.get(le) ?? 0));
  const count = delta[delta.length - 1];
  const at = (q: number) => bounds[delta.findIndex((c) => c >= q * count)] * 1000;
  return { p50: at(0.5), p99: at(0.99), count };
}

interface Scrape {
  recorded: Map<number, number>;
  finished: number;
  running: number;
  ticks: Map<string, number>;
}

/** The recorded-lateness histogram's buckets, executions finished and running, ticks by outcome. */
async function scrape(port: number): Promise<Scrape> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const recorded = new Map<number, number>();
  for (const m of text.matchAll(/^tasks_tick_recorded_lateness_seconds_bucket\{le="([^"]+)"[^}]*\} (\d+)/gm)) {
    recorded.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  }
  let finished = 0;
  for (const m of text.matchAll(/^tasks_executions_total\{[^}]*\} (\d+)/gm)) finished += Number(m[1]);
  const ticks = new Map<string, number>();
  for (const m of text.matchAll(/^tasks_ticks_total\{outcome="([^"]+)"[^}]*\} (\d+)/gm)) ticks.set(m[1], Number(m[2]));
  const running = Number(/^tasks_running\{[^}]*\} (\d+)/m.exec(text)?.[1] ?? NaN);
  return { recorded, finished, running, ticks };
}

interface MemoryFigures {
  /** PSS (kB) with every task loaded, before any boundary. */
  loaded: number;
  /** Highest PSS (kB) around each boundary. */
  peaks: number[];
}

/** The scheduler container's NODE_OPTIONS in docker-compose.yml, or TASKS_BENCH_NODE_OPTIONS to compare. */
function schedulerNodeOptions(): string {
  if (process.env.TASKS_BENCH_NODE_OPTIONS !== undefined) return process.env.TASKS_BENCH_NODE_OPTIONS;
  const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  return compose.services['task-scheduler'].environment?.NODE_OPTIONS ?? '--conditions=production';
}

async function schedulerAtScale(llm: FakeLlm): Promise<MemoryFigures> {
  const binary = findNatsServerBinary();
  if (!binary && !process.env.NATS_URL) throw new Error('tasks bench needs nats-server on PATH (or NATS_URL)');
  const nats = process.env.NATS_URL ? null : await startNatsServer(binary!);
  const natsUrl = process.env.NATS_URL ?? nats!.url;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-'));
  const metricsPort = await freePort();
  // What the image runs: the compiled service with the options docker-compose.yml gives it (tsx
  // adds ~30 MB).
  if (!FROM_SOURCE) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'ignore' });
  const nodeOptions = schedulerNodeOptions();
  const entry = FROM_SOURCE
    ? ['--import', 'tsx', 'services/task-scheduler/src/main.ts']
    : ['services/task-scheduler/dist/main.js'];
  const child: ChildProcess = spawn(process.execPath, entry, {
    env: {
      ...process.env,
      NODE_OPTIONS: FROM_SOURCE ? nodeOptions.replace('--conditions=production', '') : nodeOptions,
      ...llm.env(),
      NATS_URL: natsUrl,
      DATA_DIR: dataDir,
      MONGODB_URL: '',
      PORT: String(metricsPort),
      HOST: '127.0.0.1',
      SKILLS_DIR: path.resolve('skills'),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const bus = await connectNatsBus({ servers: [natsUrl], name: 'tasks-bench' });
  let sampler: NodeJS.Timeout | undefined;
  try {
    for (let i = 0; ; i++) {
      if (
        await listAll(bus).then(
          () => true,
          () => false,
        )
      )
        break;
      if (i > 300) throw new Error('task-scheduler did not answer within 30 s');
      await sleep(100);
    }
    const idle = memoryKb(child.pid!);
    // Create right after a minute boundary: no tick fires before every task exists, and the
    // figures with the tasks loaded are taken with nothing running.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 25_000) await sleep(60_500 - intoMinute);
    let next = 0;
    const create = await runWindowed(TASKS, 32, () => {
      const i = next++;
      return call(bus, routes.tasks.create, {
        name: `bench-${String(i).padStart(5, '0')}`,
        skillName: 'daily-meeting-digest',
        cronExpression: EVERY_MINUTE[i % EVERY_MINUTE.length],
        timezone: ZONES[i % ZONES.length],
      });
    });
    console.log(
      `task-scheduler process (${FROM_SOURCE ? 'tsx' : 'compiled'}, NODE_OPTIONS ${nodeOptions}, NATS, embedded store), ${TASKS} tasks firing every minute in ${ZONES.length} zones`,
    );
    console.log(formatRow(`  create over the bus, 32 in flight`, create));
    const listStart = performance.now();
    const listed = await listAll(bus);
    console.log(
      `  list all ${listed.length} over the bus (pages of 1000): ${(performance.now() - listStart).toFixed(0)} ms`,
    );
    const loaded = memoryKb(child.pid!);
    console.log(
      `  memory idle: PSS ${mb(idle.pss)} (RSS ${mb(idle.rss)}); with ${TASKS} tasks: PSS ${mb(loaded.pss)} (RSS ${mb(loaded.rss)})`,
    );

    const peaks: number[] = [];
    // One sampler throughout: a round's peak is the highest since the last round's watch ended.
    let peak = 0;
    sampler = setInterval(() => (peak = Math.max(peak, memoryKb(child.pid!).pss)), 200);
    // Counters as they stood before the round's tick. Listing 50,000 tasks after a round can end
    // past the next tick, so each round's figures start from the last scrape of the round before.
    let before = await scrape(metricsPort);
    let boundary = Math.ceil((Date.now() + 3000) / 60_000) * 60_000;
    for (let round = 1; round <= BOUNDARIES; round++, boundary += 60_000) {
      console.log(
        `  boundary ${round}: waiting ${((boundary - Date.now()) / 1000).toFixed(0)} s for ${new Date(boundary).toISOString()}`,
      );
      await sleep(boundary - Date.now());
      // Watch the service's own counters (cheap) instead of listing 10,000 tasks over and over.
      let recordedAt = NaN;
      let finishedAt = NaN;
      let now = await scrape(metricsPort);
      // A tick whose task still runs from the last one is skipped (50,000 tasks outlast a minute).
      const started = () => (now.ticks.get('started') ?? 0) - (before.ticks.get('started') ?? 0);
      const skipped = () => (now.ticks.get('skipped_running') ?? 0) - (before.ticks.get('skipped_running') ?? 0);
      while (Date.now() < boundary + 55_000) {
        await sleep(250);
        now = await scrape(metricsPort);
        const recorded = (now.recorded.get(Infinity) ?? 0) - (before.recorded.get(Infinity) ?? 0);
        if (Number.isNaN(recordedAt) && recorded + skipped() >= TASKS) recordedAt = Date.now();
        if (started() + skipped() >= TASKS && now.running === 0) {
          finishedAt = Date.now();
          break;
        }
      }
      peaks.push(peak);
      peak = 0;
      const settled = memoryKb(child.pid!);
      const tick = new Date(boundary).toISOString();
      const nextTick = new Date(boundary + 60_000).toISOString();
      const tasks = await listAll(bus);
      // Listing 50,000 tasks may reach past the next tick, which moves the lastRunAt of the tasks it
      // starts again: lateness is read from the tasks whose lastRunAt is still this tick's.
      const sample = tasks.filter((t) => t.lastRunAt !== null && t.lastRunAt >= tick && t.lastRunAt < nextTick);
      const lateness = sample.map((t) => Date.parse(t.lastRunAt!) - boundary).sort((a, b) => a - b);
      const recorded = histogramQuantiles(before.recorded, now.recorded);
      const statuses = new Map<string, number>();
      for (const t of sample) statuses.set(t.lastStatus ?? 'none', (statuses.get(t.lastStatus ?? 'none') ?? 0) + 1);
      const after = (at: number) =>
        Number.isNaN(at) ? 'not within 55 s' : `${((at - boundary) / 1000).toFixed(1)} s after the tick`;
      console.log(
        `  boundary ${round}: ${started()}/${TASKS} ticks started, ${skipped()} skipped as still running; ` +
          `lateness (startedAt - tick, ${sample.length} tasks) ` +
          `p50 ${percentile(lateness, 50).toFixed(0)} ms  p99 ${percentile(lateness, 99).toFixed(0)} ms  max ${lateness[lateness.length - 1]} ms`,
      );
      console.log(
        `    running records stored: p50 <= ${recorded.p50} ms, p99 <= ${recorded.p99} ms (histogram buckets), all ${after(recordedAt)}; ` +
          `all runs finished ${after(finishedAt)} (of those tasks: ${[...statuses].map(([k, v]) => `${v} ${k}`).join(', ')}); PSS peak ${mb(peaks[round - 1])}, after ${mb(settled.pss)}`,
      );
      before = now;
    }
    return { loaded: loaded.pss, peaks };
  } finally {
    clearInterval(sampler);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await bus.close();
    await nats?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The `cron` package alone with as many jobs (cron-peer.mjs), over one minute boundary. */
async function cronPeer(): Promise<MemoryFigures> {
  const child = spawn(
    process.execPath,
    [path.resolve(import.meta.dirname, 'cron-peer.mjs'), String(TASKS), JSON.stringify(ZONES)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  try {
    if ((await next()) !== 'ready') throw new Error('cron peer did not start');
    const loaded = memoryKb(child.pid!).pss;
    let peak = loaded;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryKb(child.pid!).pss)), 200);
    const report = JSON.parse(await next()) as { boundary: number; lateness: number[] };
    clearInterval(sampler);
    const lateness = report.lateness.sort((a, b) => a - b);
    console.log(`cron package peer: ${TASKS} CronJobs every minute in ${ZONES.length} zones, one process, node alone`);
    console.log(
      `  PSS with the jobs ${mb(loaded)}, peak over a boundary ${mb(peak)}; ${lateness.length}/${TASKS} ticks fired, ` +
        `lateness p50 ${percentile(lateness, 50).toFixed(0)} ms  p99 ${percentile(lateness, 99).toFixed(0)} ms`,
    );
    return { loaded, peaks: [peak] };
  } finally {
    lines.close();
    child.kill('SIGKILL');
  }
}

async function restRates(llm: FakeLlm): Promise<void> {
  const t = await startTestStack(llm.env());
  try {
    const { apiKey } = await t.createToken([]);
    const api = async (pathname: string, init: { method?: string; json?: unknown } = {}, expected = 200) => {
      const res = await t.api(pathname, { ...init, apiKey });
      await res.arrayBuffer();
      if (res.status !== expected) throw new Error(`${pathname}: ${res.status}`);
    };
    console.log('gateway REST (in-process stack, memory bus, embedded store)');
    let next = 0;
    const create = await runWindowed(2000, 16, () =>
      api(
        '/tasks',
        {
          method: 'POST',
          json: { name: `rest-${next++}`, skillName: 'daily-meeting-digest', cronExpression: '0 * * * *' },
        },
        201,
      ),
    );
    console.log(formatRow('  POST /tasks, 16 in flight', create));
    const list = await runWindowed(100, 4, () => api('/tasks'));
    console.log(formatRow('  GET /tasks (2000 tasks), 4 in flight', list));
    await api('/tasks', { method: 'POST', json: { name: 'with-history', skillName: 'daily-meeting-digest' } }, 201);
    for (let i = 0; i < 100; i++) {
      await api('/tasks/with-history/run', { method: 'POST' }, 202);
      for (;;) {
        const res = await t.api('/tasks/with-history/history?limit=1', { apiKey });
        const body = (await res.json()) as { executions: Array<{ status: string }> };
        if (body.executions[0]?.status !== 'running') break;
        await sleep(2);
      }
    }
    const history = await runWindowed(4000, 16, () => api('/tasks/with-history/history?limit=50'));
    console.log(formatRow('  GET /tasks/:name/history (50 of 100), 16 in flight', history));
    const details = await runWindowed(4000, 16, () => api('/tasks/with-history'));
    console.log(formatRow('  GET /tasks/:name (10 recent), 16 in flight', details));
  } finally {
    await t.stop();
  }
}

const llm = await startFakeLlm({ record: false });
llm.respond(() => ({ answer: 'Nothing to do.', usage: { prompt: 50, completion: 5 } }));
try {
  if (PART !== 'scheduler') await restRates(llm);
  if (PART !== 'rest') {
    const scheduler = await schedulerAtScale(llm);
    const peer = await cronPeer();
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    console.log(
      `scheduler against the cron package peer: PSS with the tasks ${ratio(scheduler.loaded, peer.loaded)}, ` +
        `peak over a boundary ${ratio(Math.max(...scheduler.peaks), peer.peaks[0])} (target: peak under 150 MB)`,
    );
  }
} finally {
  await llm.close();
}
