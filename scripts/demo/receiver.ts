/**
 * The demo's callback receiver on 127.0.0.1, as a customer's would be: every POST's signature is
 * checked over the raw body (HMAC-SHA256 with the token's signing secret, compared in constant
 * time), events are kept once per `X-Service-Event-Id` (delivery is at least once). It also serves
 * a page at `/` that shows the meeting live from those events (server-sent events at `/events`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../test/support/callback-receiver.js';

export interface DemoEvent {
  type: string;
  meetingId: string;
  sequence: number;
  timestamp: string;
  payload: Record<string, unknown>;
}

export interface DemoReceiver {
  callbackUrl: string;
  pageUrl: string;
  /** First arrivals, in order. */
  events: DemoEvent[];
  signatures: { valid: number; invalid: number };
  onEvent(listener: (event: DemoEvent) => void): void;
  /** Tells the page the demo is over (it stops listening). */
  finish(note: string): void;
  close(): Promise<void>;
}

export async function startReceiver(signingSecret: string): Promise<DemoReceiver> {
  const events: DemoEvent[] = [];
  const seen = new Set<string>();
  const signatures = { valid: 0, invalid: 0 };
  const listeners: Array<(event: DemoEvent) => void> = [];
  const pages = new Set<http.ServerResponse>();
  let finished: string | null = null;

  const send = (res: http.ServerResponse, name: string, data: unknown) =>
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/callbacks') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (!verifySignature(signingSecret, raw, req.headers['x-service-signature'] as string | undefined)) {
          signatures.invalid++;
          res.writeHead(401).end();
          return;
        }
        signatures.valid++;
        res.writeHead(200).end();
        const id = String(req.headers['x-service-event-id']);
        if (seen.has(id)) return;
        seen.add(id);
        const event = JSON.parse(raw.toString('utf8')) as DemoEvent;
        events.push(event);
        for (const page of pages) send(page, 'meeting', event);
        for (const listener of listeners) listener(event);
      });
    } else if (req.method === 'GET' && req.url === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      for (const event of events) send(res, 'meeting', event);
      if (finished !== null) send(res, 'finished', finished);
      pages.add(res);
      req.on('close', () => pages.delete(res));
    } else if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    callbackUrl: `${base}/callbacks`,
    pageUrl: `${base}/`,
    events,
    signatures,
    onEvent: (listener) => void listeners.push(listener),
    finish(note) {
      finished = note;
      for (const page of pages) send(page, 'finished', note);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const page of pages) page.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The live page: text only ever goes in through textContent. */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Notetaker demo: live transcript</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  .muted { color: #777; } .partial { color: #777; font-style: italic; min-height: 1.5em; }
  li { margin: .4rem 0; } b { margin-right: .4rem; }
</style></head>
<body>
<h1>Live transcript</h1>
<p id="status" class="muted">Waiting for the bot to join the simulated meeting…</p>
<p id="people" class="muted"></p>
<ol id="segments"></ol>
<p id="partial" class="partial"></p>
<script>
  const $ = (id) => document.getElementById(id);
  const people = new Set();
  const line = (speaker, text) => {
    const li = document.createElement('li');
    const b = document.createElement('b');
    b.textContent = speaker + ':';
    li.append(b, text);
    return li;
  };
  const source = new EventSource('/events');
  source.addEventListener('meeting', (message) => {
    const { type, payload } = JSON.parse(message.data);
    if (type === 'meeting_status') $('status').textContent = 'Bot: ' + payload.status + (payload.reason ? ' (' + payload.reason + ')' : '');
    if (type === 'participant_joined') people.add(payload.name);
    if (type === 'participant_left') people.delete(payload.name);
    if (type === 'participant_joined' || type === 'participant_left') $('people').textContent = 'In the meeting: ' + [...people].join(', ');
    if (type === 'caption_partial') $('partial').textContent = payload.speaker + ': ' + payload.text;
    if (type === 'segment_finalized') { $('segments').append(line(payload.speaker, payload.text)); $('partial').textContent = ''; }
  });
  source.addEventListener('finished', (message) => {
    source.close();
    const p = document.createElement('p');
    p.textContent = JSON.parse(message.data);
    document.body.append(p);
  });
</script>
</body></html>
`;
