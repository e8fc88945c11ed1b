/**
 * A TCP proxy in front of a local server (an S3 server, a speech engine, anything over TCP or
 * HTTP) that injects the faults a real dependency shows, switched at any time with setMode():
 *
 * - `pass`: bytes go through both ways untouched;
 * - `refuse`: nothing listens on the port (a connection is refused: ECONNREFUSED);
 * - `unavailable`: every HTTP request is answered 503 here, the server never sees it;
 * - `delay`: every request reaches the server `delayMs` late (bytes towards the server are held
 *   back, in order), so its answer is that late too: a slow store whose write lands after the
 *   client gave up;
 * - `late`: requests reach the server at once (their effect is immediate) and its answers come
 *   `delayMs` late: a store whose write lands while the client has given up waiting for the answer;
 * - `hang`: connections are taken and read, and nothing is ever answered.
 *
 * A switch ends the connections opened before it (a keep-alive connection must not keep the old
 * behaviour), as a restarting server or a network fault would: a request in flight then fails
 * with a reset. The port stays the same across modes, so the client is configured once.
 */
import http from 'node:http';
import net from 'node:net';

export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'refuse' }
  | { kind: 'unavailable' }
  | { kind: 'delay'; delayMs: number }
  | { kind: 'late'; delayMs: number }
  | { kind: 'hang' };

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: where the client goes instead of the server. */
  readonly url: string;
  readonly port: number;
  readonly mode: FaultMode;
  /** Connections accepted so far, in every mode but `refuse` (a test can see the client tried). */
  readonly connections: number;
  setMode(mode: FaultMode): Promise<void>;
  close(): Promise<void>;
}

/** The body of the 503s: S3's own error document, which an HTTP client that is not S3's reads as text. */
const UNAVAILABLE_BODY =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code>' +
  '<Message>Injected by the fault proxy</Message></Error>';

export async function startFaultProxy(
  target: { host?: string; port: number },
  mode: FaultMode = { kind: 'pass' },
): Promise<FaultProxy> {
  const host = target.host ?? '127.0.0.1';
  const open = new Set<net.Socket>();
  let current = mode;
  let accepted = 0;

  const unavailable = http.createServer((req, res) => {
    req.resume();
    res.writeHead(503, { 'content-type': 'application/xml', 'retry-after': '1' });
    res.end(UNAVAILABLE_BODY);
  });

  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = net.createServer((client) => {
    accepted++;
    track(client);
    const now = current;
    if (now.kind === 'unavailable') {
      unavailable.emit('connection', client);
      return;
    }
    if (now.kind === 'hang' || now.kind === 'refuse') {
      client.resume(); // read and drop: the client's writes never block, and it waits for ever
      return;
    }
    const upstream = net.connect({ host, port: target.port });
    track(upstream);
    upstream.once('close', () => client.destroy());
    if (now.kind === 'pass') {
      upstream.pipe(client);
      client.once('close', () => upstream.destroy());
      client.pipe(upstream);
      return;
    }
    // The held direction's bytes wait the same delay each, so the timers fire in the order they came.
    const [from, to] = now.kind === 'delay' ? [client, upstream] : [upstream, client];
    const held = new Set<NodeJS.Timeout>();
    const later = (send: () => void) => {
      const timer = setTimeout(() => {
        held.delete(timer);
        if (!to.destroyed) send();
      }, now.delayMs);
      held.add(timer);
    };
    to.once('close', () => held.forEach(clearTimeout));
    if (now.kind === 'delay') upstream.pipe(client);
    else client.pipe(upstream);
    from.on('data', (chunk: Buffer) => later(() => to.write(chunk)));
    // What was sent before the sender went still arrives, as late as the rest.
    from.once('close', () => later(() => to.end()));
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  const dropConnections = () => {
    for (const socket of open) socket.destroy();
  };

  const port = await listen(0);
  if (mode.kind === 'refuse') await stopListening();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get mode() {
      return current;
    },
    get connections() {
      return accepted;
    },
    async setMode(next) {
      current = next;
      dropConnections();
      if (next.kind === 'refuse') await stopListening();
      else if (!server.listening) await listen(port);
    },
    async close() {
      dropConnections();
      await stopListening();
      unavailable.close();
    },
  };
}
