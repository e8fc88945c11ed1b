/**
 * A real local HTTP receiver for callback tests (and benchmarks): it records every request's raw
 * body and headers, recomputes the HMAC signature over the raw bytes like a customer's receiver
 * must (constant-time compare), and answers as scripted: a status, a hang (accept, never answer),
 * a redirect, a connection reset, a slow answer. It counts open connections so a test can check
 * that the client let go of a socket.
 *
 *   const rx = await startCallbackReceiver({ secret });
 *   rx.script(replies.status(500), replies.status(500));   // the next two requests fail
 *   await rx.waitForEvents(3);
 *   expect(rx.events().map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
 */
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { eventually } from './wait.js';

export type ScriptedReply =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'redirect'; location: string; status: number }
  | { kind: 'delay'; ms: number; then: ScriptedReply };

export const replies = {
  ok: (): ScriptedReply => ({ kind: 'status', status: 200, body: '{"ok":true}' }),
  status: (status: number, headers?: Record<string, string>): ScriptedReply => ({ kind: 'status', status, headers }),
  gone: (): ScriptedReply => ({ kind: 'status', status: 410 }),
  tooManyRequests: (retryAfter: string): ScriptedReply => ({
    kind: 'status',
    status: 429,
    headers: { 'Retry-After': retryAfter },
  }),
  unavailable: (retryAfter?: string): ScriptedReply => ({
    kind: 'status',
    status: 503,
    headers: retryAfter ? { 'Retry-After': retryAfter } : undefined,
  }),
  hang: (): ScriptedReply => ({ kind: 'hang' }),
  reset: (): ScriptedReply => ({ kind: 'reset' }),
  redirect: (location: string, status = 302): ScriptedReply => ({ kind: 'redirect', location, status }),
  delay: (ms: number, then: ScriptedReply = replies.ok()): ScriptedReply => ({ kind: 'delay', ms, then }),
};

export interface ReceivedCallback {
  /** Order of arrival at this receiver, from 0. */
  index: number;
  /** performance.now() when the body was complete (same clock as the test process). */
  receivedAt: number;
  method: string;
  path: string;
  /** Header names lowercased, as Node gives them. */
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  eventId: string | undefined;
  deliveryId: string | undefined;
  eventType: string | undefined;
  meetingId: string | undefined;
  sequence: number | undefined;
  /** The signature checked against the raw body; null when no secret is known for it. */
  signatureValid: boolean | null;
  /** What this receiver answered. */
  reply: ScriptedReply;
}

export interface CallbackReceiverOptions {
  /** Signing secret to verify every request with. */
  secret?: string;
  /** Or one per meeting (takes precedence). */
  secretFor?: (meetingId: string | undefined) => string | undefined;
  /** Answer when nothing is scripted (default 200). */
  defaultReply?: ScriptedReply;
  /** Keep bodies and headers (default true); a benchmark can turn it off and use onCallback. */
  record?: boolean;
  onCallback?: (callback: ReceivedCallback) => void;
  /** Serve HTTPS with this key and certificate instead of HTTP. */
  tls?: { key: string; cert: string };
}

export interface CallbackReceiver {
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedCallback[];
  /** The next requests get these answers in order; then the default again. */
  script(...next: ScriptedReply[]): void;
  /** Decides each answer (after the script queue is empty); undefined falls back to the default. */
  respond(decide: ((callback: ReceivedCallback) => ScriptedReply | undefined) | null): void;
  setDefault(reply: ScriptedReply): void;
  /** Successful (2xx) callbacks, first arrival per event id, in arrival order. */
  events(): ReceivedCallback[];
  waitFor(predicate: (received: ReceivedCallback[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** Waits until `count` distinct events were answered 2xx. */
  waitForEvents(count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  openConnections(): number;
  /** Connections accepted since start (keep-alive reuse keeps this low). */
  totalConnections(): number;
  close(): Promise<void>;
}

export function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = crypto.createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export async function startCallbackReceiver(options: CallbackReceiverOptions = {}): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const queue: ScriptedReply[] = [];
  let decide: ((callback: ReceivedCallback) => ScriptedReply | undefined) | null = null;
  let defaultReply = options.defaultReply ?? replies.ok();
  let count = 0;
  const sockets = new Set<Socket>();
  let accepted = 0;
  const record = options.record ?? true;

  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        json = undefined;
      }
      const meetingId = one(req.headers['x-service-meeting-id']);
      const secret = options.secretFor?.(meetingId) ?? options.secret;
      const sequence = (json as { sequence?: unknown } | undefined)?.sequence;
      const callback: ReceivedCallback = {
        index: count++,
        receivedAt: performance.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        json,
        eventId: one(req.headers['x-service-event-id']),
        deliveryId: one(req.headers['x-service-delivery-id']),
        eventType: one(req.headers['x-service-event']),
        meetingId,
        sequence: typeof sequence === 'number' ? sequence : undefined,
        signatureValid: secret ? verifySignature(secret, rawBody, one(req.headers['x-service-signature'])) : null,
        reply: defaultReply,
      };
      callback.reply = queue.shift() ?? decide?.(callback) ?? defaultReply;
      if (record) received.push(callback);
      options.onCallback?.(callback);
      answer(res, callback.reply);
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  server.keepAliveTimeout = 5000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    accepted++;
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const events = () => {
    const seen = new Set<string>();
    return received.filter((c) => {
      const ok = answeredOk(c.reply);
      if (!ok || !c.eventId || seen.has(c.eventId)) return false;
      seen.add(c.eventId);
      return true;
    });
  };

  const waitFor = (predicate: (r: ReceivedCallback[]) => boolean, timeoutMs = 10_000, what = 'condition') =>
    eventually(() => predicate(received), what, timeoutMs).then(
      () => undefined,
      (err: Error) => {
        throw new Error(`callback receiver: ${err.message} (${received.length} requests)`);
      },
    );

  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    received,
    script: (...next) => void queue.push(...next),
    respond: (fn) => void (decide = fn),
    setDefault: (reply) => void (defaultReply = reply),
    events,
    waitFor,
    async waitForEvents(n, timeoutMs = 10_000) {
      await waitFor(() => events().length >= n, timeoutMs, `${n} events`);
      return events();
    },
    openConnections: () => sockets.size,
    totalConnections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Whether this reply ends in a 2xx (a delayed 200 included). */
export function answeredOk(reply: ScriptedReply): boolean {
  if (reply.kind === 'delay') return answeredOk(reply.then);
  return reply.kind === 'status' && reply.status >= 200 && reply.status < 300;
}

function answer(res: http.ServerResponse, reply: ScriptedReply): void {
  switch (reply.kind) {
    case 'status':
      res.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers });
      res.end(reply.body ?? '');
      return;
    case 'redirect':
      res.writeHead(reply.status, { Location: reply.location });
      res.end();
      return;
    case 'reset':
      res.socket?.destroy();
      return;
    case 'hang':
      return; // the socket stays open until the client gives up (or close())
    case 'delay': {
      const timer = setTimeout(() => answer(res, reply.then), reply.ms);
      res.once('close', () => clearTimeout(timer));
      return;
    }
  }
}
