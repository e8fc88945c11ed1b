/**
 * What a start costs the caller: POST /meetings/start to its 201, through the whole stack over a
 * nats-server started here (every bus call a real round trip), with the scripted platform so no
 * browser time is counted. A start claims the URL, reserves the document (transcript-store),
 * registers the callback (webhook-emitter) and places the bot on a worker.
 * `npx tsx test/bench/start.bench.ts`; BENCH_STARTS (default 60).
 */
import { findNatsServerBinary, startNatsServer } from '@notetaker/bus/test-support';
import { startCallbackReceiver } from '../support/callback-receiver.js';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack } from '../support/stack.js';
import { percentile } from './stats.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 60);

const binary = findNatsServerBinary();
if (!binary) throw new Error('start.bench needs nats-server on PATH');
const nats = await startNatsServer(binary);
const rx = await startCallbackReceiver();
const t = await startTestStack(
  { NATS_URL: nats.url, MAX_MEETINGS_PER_WORKER: '20' },
  { driverFactory: scriptedDriverFactory() },
);
try {
  const { apiKey } = await t.createToken();
  const times: number[] = [];
  for (let i = 0; i < STARTS + 5; i++) {
    const code = ['a', 'b', 'c', 'd'].map((_, k) => String.fromCharCode(97 + ((i * 7 + k * 3) % 26))).join('');
    const url = `https://meet.google.com/sta-${code}-${String.fromCharCode(97 + (i % 26))}zz`;
    const startedAt = performance.now();
    const res = await t.api('/meetings/start', { method: 'POST', apiKey, json: { url, callbackUrl: `${rx.url}/h` } });
    const ms = performance.now() - startedAt;
    if (res.status !== 201) throw new Error(`start answered ${res.status} ${await res.text()}`);
    const { meetingId } = (await res.json()) as { meetingId: string };
    if (i >= 5) times.push(ms); // the first few warm the connections and the JIT
    await t.api('/meetings/stop', { method: 'POST', apiKey, json: { meetingId } });
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `start -> 201 over NATS, ${times.length} starts: p50 ${percentile(sorted, 50).toFixed(2)} ms, p90 ${percentile(sorted, 90).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`,
  );
} finally {
  await t.stop();
  await rx.close();
  await nats.stop();
}
