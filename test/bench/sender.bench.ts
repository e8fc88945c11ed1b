/**
 * What the HTTP client costs per callback: the emitter's Sender (axios with our transport, the
 * attempt's deadline, the answer drained) against a bare `http.request`, both on the same guarded
 * keep-alive agents, to a receiver in another process, 32 in flight; and axios alone on the same
 * transport, so the difference splits into what axios adds and what the attempt's bookkeeping
 * (deadline, bounded drain, classification) adds, whatever the rest of the emitter does.
 * `npx tsx test/bench/sender.bench.ts [requests]`
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { Axios } from 'axios';
import type { Readable } from 'node:stream';
import { Sender } from '../../services/webhook-emitter/src/delivery/sender.js';
import { callbackTransport } from '../../services/webhook-emitter/src/delivery/transport.js';
import { AddressPolicy, createGuardedAgents } from '@notetaker/net';

const REQUESTS = Number(process.argv[2] ?? 20_000);
const IN_FLIGHT = 32;

const receiver = spawn(
  process.execPath,
  [
    '-e',
    `require('http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200); s.end('ok'); }); })
      .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise<number>((resolve) => receiver.stdout!.once('data', (d) => resolve(Number(String(d)))));
const url = `http://127.0.0.1:${port}/hook`;
const agents = createGuardedAgents({
  policy: new AddressPolicy({ allowPrivate: true, allowedHosts: [] }),
  maxSocketsPerReceiver: 64,
});
const sender = new Sender(agents, 10_000);
const body = Buffer.from(
  JSON.stringify({ type: 'segment_finalized', sequence: 1, payload: { text: 'x'.repeat(100) } }),
);
const headers = {
  'Content-Type': 'application/json',
  'X-Service-Signature': `sha256=${'a'.repeat(64)}`,
  'X-Service-Event': 'segment_finalized',
  'X-Service-Meeting-Id': 'meeting_1',
  'X-Service-Delivery-Id': 'delivery_1',
  'X-Service-Event-Id': 'meeting_1:1',
  'X-Service-Timestamp': '1700000000',
};

const bare = () =>
  new Promise<void>((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent: agents.http, headers: { ...headers, 'Content-Length': body.length } },
      (res) => {
        res.resume();
        res.once('end', resolve);
      },
    );
    request.once('error', reject);
    request.end(body);
  });
// axios alone, on the same transport and defaults as the Sender, without the attempt's deadline
// and bounded drain: what axios itself adds to http.request.
const plainAxios = new Axios({ adapter: callbackTransport(agents) });
const viaAxios = async () => {
  const res = await plainAxios.request<Readable>({ url, method: 'post', data: body, headers });
  await new Promise<void>((resolve, reject) => res.data.resume().once('end', resolve).once('error', reject));
};
const viaSender = async () => {
  const result = await sender.post(url, body, headers);
  if (result.kind !== 'success') throw new Error(result.error ?? result.kind);
};

async function measure(label: string, send: () => Promise<void>): Promise<number> {
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < REQUESTS) await send();
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const perRequest = (cpu.user + cpu.system) / REQUESTS;
  const rate = REQUESTS / ((performance.now() - started) / 1000);
  console.log(`  ${label.padEnd(34)} ${rate.toFixed(0).padStart(6)}/s  cpu ${perRequest.toFixed(1)} us/request`);
  return perRequest;
}

console.log(`HTTP client cost per callback, ${REQUESTS} requests, ${IN_FLIGHT} in flight, receiver in another process`);
try {
  for (let round = 1; round <= 4; round++) {
    const peer = await measure(`round ${round}: bare http.request`, bare);
    const axiosAlone = await measure(`round ${round}: axios alone`, viaAxios);
    const ours = await measure(`round ${round}: Sender (axios)`, viaSender);
    console.log(
      `  round ${round}: against bare, axios alone ${(axiosAlone / peer).toFixed(2)}x the CPU, Sender ${(ours / peer).toFixed(2)}x`,
    );
  }
} finally {
  agents.destroy();
  receiver.kill();
}
