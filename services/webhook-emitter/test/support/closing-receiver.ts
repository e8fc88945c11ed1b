/**
 * A callback receiver on raw TCP that keeps connections alive and announces that it closes them
 * after `idleMs` unused (`Keep-Alive: timeout=N`, as Node's servers do), and whose close is late:
 * a request that arrives on a connection idle that long is met by the close, unanswered. From
 * the sending end that is exactly an idle close crossing the next request on the wire, which
 * otherwise only happens now and then.
 */
import net from 'node:net';

export interface ClosingReceiver {
  url: string;
  /** Sequences answered 200, in order. */
  delivered: number[];
  /** Requests met by the close. */
  cutOff: number;
  close(): Promise<void>;
}

export async function startClosingReceiver(idleMs: number): Promise<ClosingReceiver> {
  const sockets = new Set<net.Socket>();
  const receiver: Omit<ClosingReceiver, 'url' | 'close'> = { delivered: [], cutOff: 0 };
  const answer = `HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${Math.round(idleMs / 1000)}\r\n\r\n`;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let lastAnswerAt: number | null = null;
    socket.on('data', (chunk: Buffer) => {
      if (lastAnswerAt !== null && Date.now() - lastAnswerAt >= idleMs) {
        receiver.cutOff++;
        socket.destroy();
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const bodyEnd = headEnd + 4 + length;
      if (buffered.length < bodyEnd) return;
      const { sequence } = JSON.parse(buffered.subarray(headEnd + 4, bodyEnd).toString()) as { sequence: number };
      buffered = buffered.subarray(bodyEnd);
      receiver.delivered.push(sequence);
      lastAnswerAt = Date.now();
      socket.write(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
