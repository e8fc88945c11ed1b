/**
 * Placement at scale (issue 53, item 4): one nats-server, meeting-session's registry in a process
 * of its own (MEETING_SESSION_ROLE=registry, embedded store), the gateway in another,
 * transcript-store and webhook-emitter in a third, a receiver for the callbacks here, and a fleet
 * of simulated workers (support/simulated-worker.ts: the real worker protocol over NATS, each
 * worker on its own connection, no browser; a meeting goes live and stays live) hosted a few
 * hundred to a process. Then:
 *
 *   1. starts: MEETINGS POST /meetings/start through the gateway, WINDOW in flight, in rounds; each
 *      round is followed by as many requests of a bare nats.js request/reply loop on the same
 *      server at the same window (the peer: what one round trip costs there and then). start -> 201
 *      p50/p99 beside the peer's; target p99 < 100 ms.
 *   2. registry memory: PSS (/proc/<pid>/smaps_rollup) with the fleet connected and no meeting, with
 *      every meeting live, and its peak (sampled each second); target < 1 GB.
 *   3. a killed worker: a worker in a process of its own is SIGKILLed; from the kill to the last of
 *      its meetings' terminal `meeting_status`, and their reasons; target < 5 s. The lease is
 *      BENCH_PLACEMENT_LEASE_MS (3 s: a dead worker is noticed within a lease and a sweep), so the
 *      fleet renews WORKERS / (lease / 3) leases a second; the registry's CPU at steady state says
 *      what that costs.
 *   4. scale-in: users end half of the meetings (REST stop); the ReplicaSet then removes a quarter
 *      of the workers, lowest deletion cost (live meetings) first. Each drains as on SIGTERM: out of
 *      the queue group, its meetings going on until their users end them (here: within 10 s) inside
 *      a 60 s grace; meanwhile new meetings start on the rest. Meetings the scale-in ended (any end
 *      but a user's stop, anywhere): must be 0; starts refused or placed on a draining worker: 0.
 *
 * `npx tsx test/bench/placement.bench.ts [--quick]` (quick: 100 workers, 1,000 meetings). Settings:
 * BENCH_PLACEMENT_WORKERS (1000), BENCH_PLACEMENT_MEETINGS (10000), BENCH_PLACEMENT_WINDOW (8),
 * BENCH_PLACEMENT_LEASE_MS (3000), BENCH_PLACEMENT_CAPACITY (seats per worker; default the
 * meetings at 70% of the seats, the autoscaler's target), BENCH_PLACEMENT_STEADY_S (5: the steady
 * state's length); BENCH_CPU_PROF=<dir> profiles the service processes, BENCH_HEAP_SIGNAL=1 lets
 * SIGUSR2 write their heap snapshots.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectNatsBus } from '@notetaker/bus';
import { findNatsServerBinary, startNatsServer } from '@notetaker/bus/test-support';
import { evtMeeting, isTerminalStatus, type EventEnvelope } from '@notetaker/contracts';
import { pssBytes } from '../../services/meeting-session/src/drivers/process-tree.js';
import { startCallbackReceiver } from '../support/callback-receiver.js';
import { natsPids, startServiceProcess, WorkerHost } from './support/placement-fleet.js';
import type { LoopDelay } from './support/service-process.js';
import { CpuMeter } from './support/process-cpu.js';
import { bareLoop } from './support/bare-nats-loop.js';
import { RestClient } from './support/rest-client.js';
import { cpuTimes, fmt, latencyRow, percentile, sorted, stealShare, timeWindowed } from './stats.js';

const quick = process.argv.includes('--quick') || process.env.BENCH_PLACEMENT_QUICK === '1';
const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const WORKERS = setting('BENCH_PLACEMENT_WORKERS', quick ? 100 : 1000);
const MEETINGS = setting('BENCH_PLACEMENT_MEETINGS', quick ? 1000 : 10_000);
const WINDOW = setting('BENCH_PLACEMENT_WINDOW', 8);
const LEASE_MS = setting('BENCH_PLACEMENT_LEASE_MS', 3000);
const CAPACITY = setting('BENCH_PLACEMENT_CAPACITY', Math.ceil(MEETINGS / WORKERS / 0.7));
const HEARTBEAT_MS = Math.max(50, Math.floor(LEASE_MS / 3)); // as meeting-session's config derives it
const HOSTS = Math.min(4, WORKERS - 1);
const ROUNDS = 10;
const JOIN_MS = 200;
const DRAIN_GRACE_MS = 60_000;
const USERS_END_WITHIN_MS = 10_000;
/** How long the registry's CPU is measured with every meeting live (longer: to profile the renewals). */
const STEADY_S = setting('BENCH_PLACEMENT_STEADY_S', 5);
const DEADLINE_MS = 12 * 60_000;
const MiB = 1024 * 1024;

/** A Meet code per index, distinct across runs (each run's own salt). */
const salt = Math.floor(Math.random() * 26 ** 6);
function meetUrl(i: number): string {
  let n = salt * 26 ** 4 + i;
  let letters = '';
  for (let k = 0; k < 10; k++, n = Math.floor(n / 26)) letters += String.fromCharCode(97 + (n % 26));
  return `https://meet.google.com/${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await wait(20);
  }
}

const binary = findNatsServerBinary();
if (!binary) throw new Error('placement.bench needs nats-server on PATH');
const watchdog = setTimeout(() => {
  console.log(`gave up after ${DEADLINE_MS / 1000} s`);
  process.exit(1);
}, DEADLINE_MS);
watchdog.unref();

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placement-bench-'));
const nats = await startNatsServer(binary);
const stops: Array<() => Promise<unknown>> = [];
try {
  await main();
} catch (err) {
  console.log(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await nats.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const lease = { WORKER_LEASE_MS: String(LEASE_MS), NATS_URL: nats.url };
  const registry = await startServiceProcess(['meeting-session'], {
    ...lease,
    MEETING_SESSION_ROLE: 'registry',
    DATA_DIR: path.join(dataDir, 'registry'),
  });
  stops.push(() => registry.stop());
  // As the deployment runs them (deploy/kubernetes/base): the gateway in a process of its own, and
  // the two services a start asks besides the registry (the document, the callback) in another.
  const gateway = await startServiceProcess(['gateway'], {
    ...lease,
    DATA_DIR: path.join(dataDir, 'gateway'),
    PORT: '0',
    SKILLS_DIR: path.resolve('skills'),
  });
  stops.push(() => gateway.stop());
  const peers = await startServiceProcess(['transcript-store', 'webhook-emitter'], {
    ...lease,
    DATA_DIR: path.join(dataDir, 'peers'),
  });
  stops.push(() => peers.stop());
  let callbacks = 0;
  const rx = await startCallbackReceiver({ record: false, onCallback: () => callbacks++ });
  stops.push(() => rx.close());

  // The fleet: hosts of many workers, and one worker alone in its process, to be killed.
  const setupStarted = performance.now();
  const settings = { capacity: CAPACITY, heartbeatMs: HEARTBEAT_MS, joinMs: JOIN_MS };
  const hosts = await Promise.all(
    Array.from({ length: HOSTS }, (_, h) =>
      WorkerHost.start(nats.url, { ...settings, count: Math.floor((WORKERS - 1 + h) / HOSTS) }),
    ),
  );
  const victim = await WorkerHost.start(nats.url, { ...settings, count: 1 });
  for (const host of [...hosts, victim]) stops.push(() => host.stop());
  const fleet = hosts.reduce((n, h) => n + h.workerIds.length, 1);
  console.log(
    `placement: ${fleet} simulated workers (${HOSTS} hosts + 1 alone) x ${CAPACITY} seats, lease ${LEASE_MS} ms ` +
      `(${((fleet * 1000) / HEARTBEAT_MS).toFixed(0)} renewals/s), up in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
  );

  // Every meeting's status, as the bus carries it.
  const observer = await connectNatsBus({ servers: nats.url, name: 'bench-observer' });
  stops.push(() => observer.close());
  const liveAt = new Map<string, number>();
  const ends = new Map<string, { status: string; reason: string; at: number }>();
  observer.subscribe(evtMeeting('*', 'meeting_status'), (data) => {
    const event = data as EventEnvelope;
    const { status, reason } = event.payload as { status: string; reason: string | null };
    if (status === 'live') liveAt.set(event.meetingId, performance.now());
    if (isTerminalStatus(status)) ends.set(event.meetingId, { status, reason: reason ?? '', at: performance.now() });
  });
  await observer.flush();

  let peakPss = 0;
  const sampler = setInterval(() => (peakPss = Math.max(peakPss, pssBytes(registry.pid))), 1000);
  stops.push(async () => clearInterval(sampler));
  const idlePss = pssBytes(registry.pid);

  const rest = new RestClient(gateway.gateway!.port, gateway.gateway!.apiKey, WINDOW);
  stops.push(async () => rest.close());
  const failures = new Map<string, number>();
  const started: string[] = [];
  let next = 0;
  const startOne = async () => {
    const res = await rest.post('/meetings/start', {
      url: meetUrl(next++),
      callbackUrl: `${rx.url}/hook`,
      saveTranscript: false,
    });
    if (res.status === 201) started.push(res.body.meetingId as string);
    else {
      const key = `${res.status} ${String((res.body.error as { message?: string })?.message ?? res.body.error ?? '')}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
  };

  // 1. Starts, each round beside the bare loop's round.
  let bareN = 0;
  const bare = await bareLoop(nats.url, () => ({
    url: meetUrl(bareN++),
    callbackUrl: `${rx.url}/hook`,
    saveTranscript: false,
  }));
  stops.push(() => bare.close());
  const startTimes: number[] = [];
  const bareTimes: number[] = [];
  const parts = {
    registry: [registry.pid],
    gateway: [gateway.pid],
    'transcript-store+webhook-emitter': [peers.pid],
    'worker hosts': [...hosts, victim].map((h) => h.pid),
    'nats-server': natsPids(nats.port),
    'this (HTTP client, bare loop, receiver)': [process.pid],
  };
  const meters = Object.entries(parts).map(([label, pids]) => ({ label, pids, meter: new CpuMeter(pids) }));
  const steal0 = cpuTimes();
  await Promise.all([registry.loopDelay(), gateway.loopDelay()]); // from here
  let startWall = 0;
  const phaseStarted = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const count = Math.floor(((round + 1) * MEETINGS) / ROUNDS) - Math.floor((round * MEETINGS) / ROUNDS);
    startWall += await timeWindowed(count, WINDOW, startOne, startTimes);
    await timeWindowed(count, WINDOW, bare.request, bareTimes);
  }
  const phaseS = (performance.now() - phaseStarted) / 1000;
  for (const { pids, meter } of meters) meter.sample(pids);
  const [registryLoop, gatewayLoop] = await Promise.all([registry.loopDelay(), gateway.loopDelay()]);
  // On a shared machine the latencies mean little without how busy it was.
  const steal = `${stealShare(steal0, cpuTimes())}, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`;
  await until(() => started.every((id) => liveAt.has(id)), 60_000, 'every meeting live').catch(async (err: Error) => {
    const workers = (await Promise.all(hosts.map((h) => h.report()))).flat();
    const released = workers.reduce((n, w) => n + w.departures.released, 0);
    const notLive = started.filter((id) => !liveAt.has(id)).length;
    throw new Error(`${err.message}: ${notLive} not live, ${released} released by their workers`);
  });
  const livePss = pssBytes(registry.pid);

  // Steady state: the fleet renewing its leases with every meeting live; what a start costs is beyond it.
  const steady = Object.entries(parts).map(([label, pids]) => ({ label, pids, meter: new CpuMeter(pids) }));
  await wait(STEADY_S * 1000);
  for (const { pids, meter } of steady) meter.sample(pids);
  const perSecond = (i: number) => steady[i].meter.seconds() / STEADY_S;

  console.log(`1. ${started.length} of ${MEETINGS} starts answered 201, ${WINDOW} in flight (${steal})`);
  for (const [what, n] of failures) console.log(`   not 201: ${n} x ${what}`);
  console.log(
    latencyRow('   start -> 201 (REST, gateway, registry, worker)', startTimes, 'ms', 1) + '  target p99 < 100',
  );
  console.log(latencyRow('   bare nats.js request/reply, same server, same window', bareTimes, 'ms', 2));
  const ratio = (p: number) => percentile(sorted(startTimes), p) / percentile(sorted(bareTimes), p);
  console.log(
    `   start / bare: p50 ${fmt(ratio(50), 1, 0)}x, p99 ${fmt(ratio(99), 1, 0)}x; ${fmt((started.length * 1000) / startWall, 0, 0)} starts/s`,
  );
  const perStart = (i: number) => ((meters[i].meter.seconds() - perSecond(i) * phaseS) * 1000) / started.length;
  console.log(
    `   CPU per start, in all / beyond the renewals, ms: ` +
      meters
        .map(({ label, meter }, i) => {
          const all = (meter.seconds() * 1000) / started.length;
          return `${label} ${fmt(all, 2, 0)} / ${fmt(perStart(i), 2, 0)}`;
        })
        .join(', '),
  );
  const loop = (d: LoopDelay) => `p50 ${fmt(d.p50, 1, 0)} ms, p99 ${fmt(d.p99, 1, 0)} ms, max ${fmt(d.max, 0, 0)} ms`;
  console.log(`   event loop delay meanwhile: registry ${loop(registryLoop)}; gateway ${loop(gatewayLoop)}`);
  console.log(
    `2. registry PSS: ${fmt(idlePss / MiB, 0, 0)} MiB with the fleet and no meeting, ${fmt(livePss / MiB, 0, 0)} MiB with ` +
      `${started.length} live, peak ${fmt(Math.max(peakPss, livePss) / MiB, 0, 0)} MiB  target < 1024 MiB`,
  );
  const renewals = (fleet * 1000) / HEARTBEAT_MS;
  console.log(
    `   steady state (${fmt(renewals, 0, 0)} renewals/s, sweeps), cores: ` +
      `${steady.map(({ label }, i) => `${label} ${fmt(perSecond(i), 3, 0)}`).join(', ')}; ` +
      `registry ${fmt((perSecond(0) * 1e6) / renewals, 0, 0)} us per renewal`,
  );

  // 3. A worker killed.
  const [alone] = await victim.report();
  const doomed = alone.meetingIds;
  const killedAt = performance.now();
  await victim.kill();
  await until(() => doomed.every((id) => ends.has(id)), 60_000, "the killed worker's meetings ended");
  const lastEnd = Math.max(...doomed.map((id) => ends.get(id)!.at)) - killedAt;
  const reasons = countBy(doomed.map((id) => `${ends.get(id)!.status}/${ends.get(id)!.reason}`));
  console.log(
    `3. killed worker's ${doomed.length} meetings ended in ${fmt(lastEnd / 1000, 2, 0)} s (${reasons})  target < 5 s`,
  );

  await scaleIn(hosts, rest, ends, startOne, started);
  console.log(
    `   webhooks answered: ${callbacks}; registry PSS at the end ${fmt(pssBytes(registry.pid) / MiB, 0, 0)} MiB`,
  );
}

/** 4. Half the meetings end; a quarter of the workers go, lowest cost first; nothing is cut. */
async function scaleIn(
  hosts: WorkerHost[],
  rest: RestClient,
  ends: Map<string, { status: string; reason: string; at: number }>,
  startOne: () => Promise<void>,
  started: string[],
): Promise<void> {
  const live = started.filter((id) => !ends.has(id));
  const ending = live.filter((_, i) => i % 2 === 0);
  const stopTimes: number[] = [];
  const refusals = new Map<string, number>();
  /** As a user does: a stop the service could not answer (5xx) is asked again, up to 3 times. */
  const stop = async (meetingId: string) => {
    for (let attempt = 1; ; attempt++) {
      const res = await rest.post('/meetings/stop', { meetingId });
      // 409 after a failed try: that try stopped it, its answer was what failed.
      if (res.status === 200 || (res.status === 409 && attempt > 1)) return;
      const key = `${res.status} ${String((res.body.error as { message?: string })?.message ?? res.body.error ?? '')}`;
      refusals.set(key, (refusals.get(key) ?? 0) + 1);
      if (res.status < 500 || attempt === 3) throw new Error(`stop answered ${key}`);
    }
  };
  let i = 0;
  await timeWindowed(ending.length, WINDOW, () => stop(ending[i++]), stopTimes);
  await until(() => ending.every((id) => ends.has(id)), 30_000, 'the stopped meetings ended');
  console.log(`4. users stop ${ending.length} meetings:`);
  console.log(latencyRow('   stop -> 200', stopTimes, 'ms', 1));

  const sinceScaleIn = performance.now();
  const reports = (await Promise.all(hosts.map((h) => h.report()))).map((workers, h) => ({ h, workers }));
  const byCost = reports
    .flatMap(({ h, workers }) => workers.map((w) => ({ h, ...w })))
    .sort((a, b) => a.meetingIds.length - b.meetingIds.length);
  const going = byCost.slice(0, Math.floor(byCost.length / 4));
  const goingIds = new Set(going.map((w) => w.workerId));
  const costs = countBy(going.map((w) => String(w.meetingIds.length)));
  const drains = hosts.map((host, h) =>
    host.drain(
      going.filter((w) => w.h === h).map((w) => w.workerId),
      DRAIN_GRACE_MS,
    ),
  );
  // Read after the drain began (a host answers in order): a meeting placed since the costs were read counts too.
  const draining = (await Promise.all(hosts.map((h) => h.report()))).flat().filter((w) => goingIds.has(w.workerId));
  const onGoing = draining.flatMap((w) => w.meetingIds);
  // Their users end the meetings on the draining workers over 10 s; new meetings start meanwhile.
  const before = started.length;
  const stopping = onGoing.map(async (meetingId) => {
    await wait(Math.random() * USERS_END_WITHIN_MS);
    await stop(meetingId);
  });
  const newStarts: number[] = [];
  await timeWindowed(Math.floor(MEETINGS / 20), WINDOW, startOne, newStarts);
  await Promise.all(stopping);
  const leftMs = (await Promise.all(drains)).flat();
  await wait(2 * LEASE_MS); // the sweeps after the last one left
  const cut = [...ends].filter(([, end]) => end.at >= sinceScaleIn && end.reason !== 'stopped');
  const after = (await Promise.all(hosts.map((h) => h.report()))).flat();
  const refusedByGoing = after.filter((w) => goingIds.has(w.workerId)).reduce((n, w) => n + w.refused, 0);
  const shutdown = after.reduce((n, w) => n + w.departures.worker_shutdown, 0);
  console.log(
    `   scale-in: ${going.length} workers drained, lowest cost first (live meetings: ${costs}); ` +
      `their ${onGoing.length} meetings ended by their users`,
  );
  console.log(latencyRow('   SIGTERM -> worker gone', leftMs, 'ms', 0));
  console.log(
    latencyRow('   starts meanwhile -> 201', newStarts, 'ms', 1) +
      `  (${started.length - before} of ${newStarts.length} answered 201)`,
  );
  for (const [what, n] of refusals) console.log(`   stops asked again: ${n} x ${what}`);
  console.log(
    `   meetings the scale-in ended: ${cut.length} (${countBy(cut.map(([, e]) => `${e.status}/${e.reason}`)) || 'none'}), ` +
      `worker_shutdown ${shutdown}; placements reaching a draining worker: ${refusedByGoing}  target 0`,
  );
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${v} x${n}`).join(', ');
}
