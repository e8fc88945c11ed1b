/**
 * A Unix socket beside the gateway's embedded data (mode 0600: only the operator's user) through
 * which the CLI reaches a running gateway. One JSON request per connection, one JSON reply.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { errors, toWireError } from '@notetaker/contracts';

/**
 * A request is a few short fields, except `bot-account add`: a session file of up to 1 MB sent as a
 * JSON string, whose escapes (every quote of the file) can nearly double it.
 */
const MAX_ADMIN_REQUEST_CHARS = 2.5 * 1024 * 1024;

export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, 'gateway', 'admin.sock');
}

export async function serveAdminSocket(
  socketPath: string,
  handle: (request: unknown) => Promise<unknown>,
): Promise<{ close(): Promise<void> }> {
  fs.rmSync(socketPath, { force: true });
  // Half-open: the client ends its side to mark the request complete and still reads the reply.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    let raw = '';
    let tooLarge = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      if (tooLarge) return;
      raw += chunk;
      if (raw.length <= MAX_ADMIN_REQUEST_CHARS) return;
      // Answered rather than cut off, so the CLI says why; the rest of the request is ignored.
      tooLarge = true;
      raw = '';
      socket.end(
        JSON.stringify({ ok: false, error: toWireError(errors.payloadTooLarge('The admin request is too large')) }),
      );
    });
    socket.on('end', () => {
      if (tooLarge) return;
      Promise.resolve()
        .then(() => handle(JSON.parse(raw)))
        .then(
          (result) => ({ ok: true, result }),
          (err: unknown) => ({ ok: false, error: toWireError(err) }),
        )
        .then((reply) => socket.end(JSON.stringify(reply)));
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

export async function callAdminSocket(socketPath: string, request: unknown): Promise<unknown> {
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.end(JSON.stringify(request)));
    socket.on('data', (chunk) => (reply += chunk));
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
  });
  return JSON.parse(raw);
}
