import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { delimiter, join } from 'node:path';
import { eventually } from '../../../../test/support/wait.js';

/**
 * Starts a throwaway nats-server for tests and benches. Each caller gets its own port so parallel
 * workers on one machine never share (or kill) each other's server.
 */
export interface NatsServerHandle {
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL, as a crash would) and waits for the process to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it accepts connections. */
  restart(): Promise<void>;
}

// A crashed or interrupted test run must not leave servers behind on the shared machine.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function findNatsServerBinary(): string | undefined {
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv) return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this PATH entry
    }
  }
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startNatsServer(binary: string, port?: number): Promise<NatsServerHandle> {
  const chosenPort = port ?? (await freePort());
  let child = await launch(binary, chosenPort);
  return {
    url: `nats://127.0.0.1:${chosenPort}`,
    port: chosenPort,
    stop: () => kill(child),
    restart: async () => {
      await kill(child);
      child = await launch(binary, chosenPort);
    },
  };
}

async function launch(binary: string, port: number): Promise<ChildProcess> {
  const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  // Truthy as soon as it listens, or exits (no use waiting longer).
  const outcome = await eventually(
    async () => (child.exitCode !== null ? 'exited' : (await acceptsTcp(port)) && 'listening'),
    `nats-server to listen on ${port}`,
    10_000,
  ).catch(async (err: Error) => {
    await kill(child);
    throw new Error(`${err.message}: ${stderr}`, { cause: err });
  });
  if (outcome === 'exited') throw new Error(`nats-server exited (${child.exitCode}): ${stderr}`);
  return child;
}

function acceptsTcp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/**
 * The nats-server a test suite runs against: NATS_URL when set, else one started here (stop it
 * after the suite). Skips the suite, saying why, when there is neither.
 */
export async function natsForSuite(suite: { skip(): void }): Promise<{ url: string; server: NatsServerHandle | null }> {
  if (process.env.NATS_URL) return { url: process.env.NATS_URL, server: null };
  const binary = findNatsServerBinary();
  if (!binary) {
    console.log('    skipping: no nats-server binary on PATH and NATS_URL is not set');
    suite.skip();
    throw new Error('unreachable: skip() throws');
  }
  const server = await startNatsServer(binary);
  return { url: server.url, server };
}
