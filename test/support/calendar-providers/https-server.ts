/**
 * A real HTTPS server on 127.0.0.1 with the local test certificate (local-tls.cjs), which the
 * test process trusts through NODE_EXTRA_CA_CERTS (.mocharc.cjs), as an operator's CA would be.
 * Each provider stand-in here is one: it answers the provider's protocol and records what it got.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createRequire } from 'node:module';

const { localTls } = createRequire(import.meta.url)('../local-tls.cjs') as {
  localTls(): { certFile: string; keyFile: string };
};

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
  /** The status answered, once it was. */
  status?: number;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => unknown;

export interface LocalHttpsServer {
  origin: string;
  port: number;
  requests: RecordedRequest[];
  /** Stops answering: connections are refused until `resume` (the same port). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpsServer(handler: Handler): Promise<LocalHttpsServer> {
  const { certFile, keyFile } = localTls();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const make = () =>
    https
      .createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const url = new URL(req.url ?? '/', 'https://127.0.0.1');
          const recorded: RecordedRequest = {
            method: req.method ?? 'GET',
            path: url.pathname,
            query: url.searchParams,
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          };
          requests.push(recorded);
          res.on('finish', () => (recorded.status = res.statusCode));
          Promise.resolve(handler(recorded, res)).catch((err: unknown) => {
            res.statusCode = 500;
            res.end(String(err));
          });
        });
      })
      .on('connection', (socket: Socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
  let server = make();
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    requests,
    pause: shut,
    async resume() {
      server = make();
      await listen(port);
    },
    close: () => (server.listening ? shut() : Promise.resolve()),
  };
}

export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

interface Fault {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Only requests whose path (with its query) holds this get it: one calendar's, not its neighbours'. */
  only: string;
}

/** The next replies a stand-in gives instead of its own: a status with headers (429 + Retry-After, 503). */
export class FaultQueue {
  private readonly queue: Fault[] = [];
  push(
    only: string,
    status: number,
    headers: Record<string, string> = {},
    body: unknown = { error: { code: status } },
  ) {
    this.queue.push({ status, headers, body, only });
  }
  /** Answers with the next fault for this request, if one waits; true when it did. */
  answer(request: RecordedRequest, response: ServerResponse): boolean {
    const where = `${request.path}?${request.query.toString()}`;
    const index = this.queue.findIndex((fault) => where.includes(fault.only));
    if (index < 0) return false;
    const [next] = this.queue.splice(index, 1);
    json(response, next.status, next.body, next.headers);
    return true;
  }
}
