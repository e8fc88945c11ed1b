/**
 * Calendars (issue 52). Part 1, start lateness: 50 meetings on an ICS feed, spread over 10 s, in
 * the in-process stack (scripted platform, CALENDAR_JOIN_LEAD_MS=1000): each bot's start (its
 * driver started) against the event's start minus the lead, p50/p99. Part 2, the cost of 1,000
 * connected ICS calendars of 20 meetings each: the task-scheduler as its own process on NATS
 * (through tsx), its CPU per sync round (every calendar read once) when no feed changed (304s)
 * and when every feed changed (all parsed and expanded again), and its memory (PSS); beside it a
 * bare loop (bare-calendar-loop.mjs) fetching, parsing and expanding the same feeds with the
 * same concurrency, its CPU per round and PSS.
 * `npx tsx test/bench/calendars.bench.ts` (CALENDAR_BENCH_CALENDARS, CALENDAR_BENCH_ROUNDS)
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { connectNatsBus, type Bus } from '@notetaker/bus';
import { findNatsServerBinary, freePort, startNatsServer } from '@notetaker/bus/test-support';
import { routes } from '@notetaker/contracts';
import {
  icsCalendar,
  icsMeeting,
  startIcsFeedServer,
  type IcsFeedServer,
} from '../support/calendar-providers/ics-feed.js';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack } from '../support/stack.js';
import { eventually, sleep } from '../support/wait.js';
import { fmt, latencyRow, mean } from './stats.js';

const CALENDARS = Number(process.env.CALENDAR_BENCH_CALENDARS ?? 1000);
const ROUNDS = Number(process.env.CALENDAR_BENCH_ROUNDS ?? 3);
const EVENTS_PER_CALENDAR = 20;
const CONCURRENCY = 8;
const ROOT = path.resolve(import.meta.dirname, '../..');

const { trustFile } = createRequire(import.meta.url)('../support/local-tls.cjs') as { trustFile(): string };
// The stand-in feeds' certificate is trusted by this process and its children as the tests' is;
// NODE_EXTRA_CA_CERTS is read at start, so the bench runs itself again with it set.
if (!process.env.CALENDAR_BENCH_CHILD) {
  process.env.NODE_EXTRA_CA_CERTS = trustFile();
  const again = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, CALENDAR_BENCH_CHILD: '1' },
  });
  process.exit(again.status ?? 1);
}

const letters = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((seed * 7 + i * 13) % 26))).join('');
const meetCode = (seed: number) =>
  `https://meet.google.com/${letters(3, seed)}-${letters(4, seed + 1)}-${letters(3, seed + 2)}`;

async function lateness(ics: IcsFeedServer): Promise<void> {
  const LEAD = 1000;
  const drivers = scriptedDriverFactory();
  const starts = new Map<string, number>();
  const t = await startTestStack(
    { CALENDAR_SYNC_INTERVAL_MS: '2000', CALENDAR_JOIN_LEAD_MS: String(LEAD), MAX_MEETINGS_PER_WORKER: '60' },
    {
      driverFactory: {
        ...drivers,
        create(target) {
          const driver = drivers.create(target);
          return { ...driver, start: (l) => (starts.set(target.url, Date.now()), driver.start(l)) };
        },
      },
    },
  );
  try {
    const { apiKey } = await t.createToken();
    const first = Math.ceil((Date.now() + 8000) / 1000) * 1000;
    const events = Array.from({ length: 50 }, (_, i) => ({
      link: `https://meet.google.com/lat-${letters(4, i)}-${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`,
      start: first + (i % 10) * 1000,
    }));
    const url = ics.feed(icsCalendar(events.map((e, i) => icsMeeting(`lat-${i}`, e.start, e.link))));
    const answer = await t.api('/calendars', {
      method: 'POST',
      apiKey,
      json: { provider: 'ics', url, callbackUrl: 'https://hooks.example.com/x', saveTranscript: false, join: 'all' },
    });
    if (answer.status !== 201) throw new Error(`connect answered ${answer.status}`);
    await eventually(() => starts.size === 50, 'every bot', 60_000);
    const late = events.map((e) => starts.get(new URL(e.link).toString())! - (e.start - LEAD));
    console.log('\n1. Start lateness, 50 meetings (bot driver start - (event start - lead))');
    console.log(latencyRow('   lateness', late));
  } finally {
    await t.stop();
  }
}

const cpuOf = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
};
const pssOf = (pid: number) =>
  Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? NaN) / 1024;

async function scale(ics: IcsFeedServer): Promise<void> {
  const binary = findNatsServerBinary();
  if (!binary) return console.log('\n2. skipped: no nats-server on PATH');
  const nats = await startNatsServer(binary);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-bench-'));
  const INTERVAL = 15_000;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'services/task-scheduler/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NATS_URL: nats.url,
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      CALENDAR_SYNC_INTERVAL_MS: String(INTERVAL),
      SKILLS_DIR: path.join(ROOT, 'skills'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let bus: Bus | null = null;
  try {
    bus = await connectNatsBus({ servers: nats.url, name: 'calendar-bench' });
    const day = 86_400_000;
    const base = Date.now() + day;
    const feedOf = (c: number, stamp: number) =>
      icsCalendar(
        Array.from({ length: EVENTS_PER_CALENDAR }, (_, e) =>
          icsMeeting(`c${c}-e${e}`, base + (e % 7) * day + e * 1_800_000, meetCode(c * 31 + e), [`X-STAMP:${stamp}`]),
        ),
      );
    const urls = Array.from({ length: CALENDARS }, (_, c) => ics.feed(feedOf(c, 0)));
    const caller = { kind: 'token' as const, tokenId: 'bench', capabilities: [] };
    await eventually(
      async () => {
        await bus!.request(routes.calendars.list.subject, { caller }, { timeoutMs: 2000 });
        return true;
      },
      'the scheduler up',
      60_000,
    );
    // What the process spends with no calendar at all over one interval (lease rounds, timers).
    const idle0 = cpuOf(child.pid!);
    await sleep(INTERVAL);
    const idleMs = cpuOf(child.pid!) - idle0;
    const connectStarted = Date.now();
    for (let i = 0; i < urls.length; i += 50) {
      await Promise.all(
        urls.slice(i, i + 50).map((url) =>
          bus!.request(routes.calendars.connect.subject, {
            provider: 'ics',
            url,
            callbackUrl: 'https://hooks.example.com/x',
            saveTranscript: false,
            join: 'none',
            caller,
          }),
        ),
      );
    }
    const hits = () => urls.reduce((sum, url) => sum + Math.min(1, ics.hits(url).total), 0);
    await eventually(() => hits() === CALENDARS, 'every calendar read once', 300_000);
    console.log(
      `\n2. ${CALENDARS} ICS calendars x ${EVENTS_PER_CALENDAR} meetings, task-scheduler alone (tsx) on NATS, ${CONCURRENCY} syncs at once`,
    );
    console.log(
      `   connected and read once in ${((Date.now() - connectStarted) / 1000).toFixed(1)} s; PSS ${fmt(pssOf(child.pid!))} MB`,
    );

    const round = async (changed: boolean, n: number) => {
      if (changed) urls.forEach((url, c) => ics.set(url, feedOf(c, n + 1)));
      const before = urls.map((url) => ics.hits(url).total);
      const cpu0 = cpuOf(child.pid!);
      const t0 = Date.now();
      await eventually(() => urls.every((url, i) => ics.hits(url).total > before[i]), 'a round', INTERVAL * 4);
      // The last reads' answers are being applied: a moment for their writes.
      await sleep(500);
      return { cpuMs: cpuOf(child.pid!) - cpu0, wallMs: Date.now() - t0, pss: pssOf(child.pid!) };
    };
    const unchanged = [];
    const changed = [];
    for (let n = 0; n < ROUNDS; n++) unchanged.push(await round(false, n));
    for (let n = 0; n < ROUNDS; n++) changed.push(await round(true, n + 100));
    const row = (label: string, rs: Array<{ cpuMs: number; pss: number }>) =>
      console.log(
        `   ${label.padEnd(46)} CPU ${fmt(mean(rs.map((r) => r.cpuMs)), 0)} ms/round  PSS ${fmt(Math.max(...rs.map((r) => r.pss)))} MB`,
      );
    row('scheduler, feeds unchanged (304)', unchanged);
    row('scheduler, every feed changed (parsed again)', changed);

    const list = path.join(dataDir, 'urls.json');
    fs.writeFileSync(list, JSON.stringify(urls));
    // Not spawnSync: the feeds are served by this process's event loop.
    const bare = spawn(
      process.execPath,
      [path.join(import.meta.dirname, 'bare-calendar-loop.mjs'), list, String(ROUNDS), String(CONCURRENCY)],
      { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    bare.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => bare.once('exit', resolve));
    const rounds: Array<{ cpuMs: number; pssKb: number; events: number }> = out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    if (rounds.length === 0) throw new Error('the bare loop answered nothing');
    console.log(
      `   ${'bare loop: fetch + ical.js parse + expand'.padEnd(46)} CPU ${fmt(mean(rounds.map((r) => r.cpuMs)), 0)} ms/round  PSS ${fmt(Math.max(...rounds.map((r) => r.pssKb)) / 1024)} MB  (${rounds[0].events} occurrences)`,
    );
  } finally {
    await bus?.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await nats.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const ics = await startIcsFeedServer();
try {
  if (process.env.CALENDAR_BENCH_PART !== 'scale') await lateness(ics);
  if (process.env.CALENDAR_BENCH_PART !== 'lateness') await scale(ics);
} finally {
  await ics.close();
}
