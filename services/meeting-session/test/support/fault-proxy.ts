/**
 * A TCP proxy in front of a real server (the local S3 server) that injects the faults storage has
 * in production: connections refused, HTTP 503s, answers late, or no answer at all. Every
 * connection opened while a mode holds gets that mode; changing the mode drops the connections
 * open under the previous one, as a network or a restarted server would.
 */
import net from 'node:net';

export type FaultMode =
  | { kind: 'pass' }
  /** Connections are reset as they come: the endpoint is unreachable. */
  | { kind: 'refuse' }
  /** Every request is answered 503 (a store overloaded or restarting). */
  | { kind: 'unavailable' }
  /** Requests go through, answers come `ms` late (the request's effect is immediate). */
  | { kind: 'late'; ms: number }
  /** Connections are accepted and nothing is ever answered. */
  | { kind: 'hang' };

export interface FaultProxy {
  url: string;
  set(mode: FaultMode): void;
  stop(): Promise<void>;
}

const UNAVAILABLE_BODY =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>injected</Message></Error>';
const UNAVAILABLE =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\nConnection: close\r\n' +
  `Content-Length: ${Buffer.byteLength(UNAVAILABLE_BODY)}\r\n\r\n${UNAVAILABLE_BODY}`;

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  let mode: FaultMode = { kind: 'pass' };
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    const current = mode;
    if (current.kind === 'refuse') return client.resetAndDestroy();
    if (current.kind === 'hang') return client.resume();
    if (current.kind === 'unavailable') {
      client.once('data', () => client.end(UNAVAILABLE));
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    open.add(upstream);
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    if (current.kind === 'pass') upstream.pipe(client);
    else
      upstream.on('data', (chunk: Buffer) => {
        setTimeout(() => {
          if (!client.destroyed) client.write(chunk);
        }, current.ms);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    set(next) {
      mode = next;
      for (const socket of [...open]) socket.destroy();
    },
    async stop() {
      for (const socket of [...open]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
