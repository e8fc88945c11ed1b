/**
 * What our bus adapter costs over raw nats.js: request/reply round trips with a 1 KB JSON payload,
 * 1 and 32 in flight, for raw nats.js, NatsBus and MemoryBus, on a nats-server started here.
 * Target: NatsBus >= 0.9x raw throughput and <= 1.1x raw p99 at both windows.
 * Raw nats.js runs with the connection options NatsBus uses (noAsyncTraces), so the ratio is the
 * cost of our code alone; "JSONCodec" is the like-for-like baseline (it carries the same JSON values),
 * "bytes echo" the floor (no JSON at all). Cases run interleaved in many short rounds and their
 * latencies are pooled, so load from other processes on a shared machine hits every case alike;
 * CPU per request (this process: client and responder) is the figure least disturbed by that load.
 * `npx tsx test/bench/bus.bench.ts`
 */
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { connectNatsBus, MemoryBroker, MemoryBus, type Bus } from '@notetaker/bus';
import { findNatsServerBinary, startNatsServer, type NatsServerHandle } from '@notetaker/bus/test-support';
import { formatRow, runWindowed, summarize, timeWindowed, type LatencySummary } from './stats.js';

const ROUNDS = 16;
// Requests per case, split over the rounds; one in flight is latency-bound, hence fewer (< 60 s total).
const REQUESTS_BY_WINDOW = new Map([
  [1, 16_000],
  [32, 40_000],
]);
// 1 KB once serialized: what a typical command or transcript chunk weighs.
const payload = { id: 'm-0001', seq: 42, text: 'x'.repeat(1024 - 42) };

type Case = { label: string; op: () => Promise<unknown>; stop: () => Promise<void> };

async function rawNatsCase(url: string, label: string, json: boolean): Promise<Case> {
  const server = await connect({ servers: url, name: 'bench-raw-server', noAsyncTraces: true });
  const client = await connect({ servers: url, name: 'bench-raw-client', noAsyncTraces: true });
  const jc = JSONCodec();
  // A subject per case: all cases share one server, and a stray responder would answer for another.
  const subject = `bench.raw.${json ? 'json' : 'bytes'}`;
  server.subscribe(subject, {
    callback: (_err, msg) => msg.respond(json ? jc.encode(jc.decode(msg.data)) : msg.data),
  });
  await server.flush();
  const bytes = jc.encode(payload);
  const op = json
    ? async () => jc.decode((await client.request(subject, jc.encode(payload), { timeout: 5000 })).data)
    : () => client.request(subject, bytes, { timeout: 5000 });
  return { label, op, stop: () => closeAll(server, client) };
}

async function busCase(label: string, server: Bus, client: Bus): Promise<Case> {
  const subject = `bench.bus.${label.toLowerCase()}`;
  server.serve(subject, (data) => data);
  await server.flush();
  return {
    label,
    op: () => client.request(subject, payload),
    stop: async () => void (await Promise.all([server.close(), client.close()])),
  };
}

async function closeAll(...connections: NatsConnection[]): Promise<void> {
  await Promise.all(connections.map((nc) => nc.close()));
}

interface Totals {
  latencies: number[];
  wallMs: number;
  cpuMicros: number;
}

/** One round of `count` requests with `window` in flight, added to the case's totals. */
async function runRound(count: number, window: number, op: () => Promise<unknown>, totals: Totals): Promise<void> {
  const cpuBefore = process.cpuUsage();
  totals.wallMs += await timeWindowed(count, window, op, totals.latencies);
  const cpu = process.cpuUsage(cpuBefore);
  totals.cpuMicros += cpu.user + cpu.system;
}

async function main(): Promise<void> {
  let server: NatsServerHandle | undefined;
  let url = process.env.NATS_URL;
  if (!url) {
    const binary = findNatsServerBinary();
    if (!binary) throw new Error('bus bench needs nats-server on PATH (or NATS_URL)');
    server = await startNatsServer(binary);
    url = server.url;
  }
  const cases: Case[] = [];
  try {
    const broker = new MemoryBroker();
    cases.push(
      await rawNatsCase(url, 'raw nats.js (bytes echo)', false),
      await rawNatsCase(url, 'raw nats.js (JSONCodec)', true),
      await busCase(
        'NatsBus',
        await connectNatsBus({ servers: url, name: 'bench-bus-server' }),
        await connectNatsBus({ servers: url, name: 'bench-bus-client' }),
      ),
      await busCase('MemoryBus', new MemoryBus({ broker }), new MemoryBus({ broker })),
    );
    for (const c of cases) await runWindowed(3000, 8, c.op); // JIT warm-up

    console.log(`bus: request/reply, 1 KB JSON, ${ROUNDS} interleaved rounds per window`);
    for (const [window, requests] of REQUESTS_BY_WINDOW) {
      const perRound = Math.ceil(requests / ROUNDS);
      const totals = cases.map((): Totals => ({ latencies: [], wallMs: 0, cpuMicros: 0 }));
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < cases.length; i++) await runRound(perRound, window, cases[i].op, totals[i]);
      }
      console.log(`  ${window} in flight, ${perRound * ROUNDS} requests per case`);
      const summaries = totals.map((t) => summarize(t.latencies, t.wallMs));
      const [raw, rawJson] = summaries;
      cases.forEach((c, i) => {
        const summary = summaries[i];
        const cpu = totals[i].cpuMicros / totals[i].latencies.length;
        const vs = (base: LatencySummary) =>
          `${(summary.perSecond / base.perSecond).toFixed(2)}x tput ${(summary.p99 / base.p99).toFixed(2)}x p99`;
        const extra = `  cpu ${cpu.toFixed(1).padStart(5)} us/req  vs JSONCodec ${vs(rawJson)} | vs bytes ${vs(raw)}`;
        console.log(formatRow(`    ${c.label}`, summary, extra));
      });
    }
  } finally {
    for (const c of cases) await c.stop();
    await server?.stop();
  }
}

await main();
