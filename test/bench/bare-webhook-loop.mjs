/**
 * The webhooks bench's peer: the bare work of a signed delivery and nothing else, to measure the
 * emitter against. Per event: the envelope's JSON, its HMAC-SHA256 signature header, one POST on
 * a keep-alive `http.request` agent, the answer drained; in order per meeting (the next event
 * after the previous one's 2xx), all meetings at once. No store, no bus, no retries, no address
 * policy, no delivery log: what those cost is what the ratio shows.
 * Plain JavaScript on node alone, like the compiled emitter it is set against (tsx would add its
 * own cost); webhooks.bench.ts runs it in a process of its own with BARE_WEBHOOK_LOOP set to
 * `{url, secret, meetings, events}` and reads one JSON line: deliveries, perSecond, cpuUsPerDelivery.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { CALLBACK_HEADERS } from '@notetaker/contracts';

async function loop({ url, secret, meetings, events }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const post = (body, headers) =>
    new Promise((resolve, reject) => {
      const request = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers },
        (res) => {
          res.resume();
          res.once('end', () =>
            res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      request.once('error', reject);
      request.end(body);
    });

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: meetings }, async (_, m) => {
      const meetingId = `meeting_${Date.now()}_bare${String(m).padStart(6, '0')}`;
      for (let sequence = 1; sequence <= events; sequence++) {
        const type = sequence === events ? 'meeting_status' : 'segment_finalized';
        const timestamp = new Date().toISOString();
        const payload =
          type === 'meeting_status'
            ? { status: 'ended', previousStatus: 'leaving', reason: null }
            : { speaker: 'Ada Lovelace', text: `Sentence number ${sequence} of a typical transcript line.`, timestamp };
        const body = Buffer.from(JSON.stringify({ type, meetingId, sequence, timestamp, payload }));
        await post(body, {
          'Content-Type': 'application/json',
          'Content-Length': body.length,
          [CALLBACK_HEADERS.signature]: `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`,
          [CALLBACK_HEADERS.event]: type,
          [CALLBACK_HEADERS.meetingId]: meetingId,
          [CALLBACK_HEADERS.deliveryId]: crypto.randomUUID(),
          [CALLBACK_HEADERS.eventId]: `${meetingId}:${sequence}`,
          [CALLBACK_HEADERS.timestamp]: String(Math.floor(Date.now() / 1000)),
        });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const deliveries = meetings * events;
  agent.destroy();
  return { deliveries, perSecond: deliveries / seconds, cpuUsPerDelivery: (cpu.user + cpu.system) / deliveries };
}

console.log(JSON.stringify(await loop(JSON.parse(process.env.BARE_WEBHOOK_LOOP))));
