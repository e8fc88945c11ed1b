/**
 * The service runtime as an operator meets it: a service run alone in its own process answers
 * /healthz, /readyz and /metrics on PORT, keeps its store under DATA_DIR, and on SIGTERM stops its
 * work, closes its store (the LOCK goes) and exits 0.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { eventually } from '../../../test/support/wait.js';

const CHILD = fileURLToPath(new URL('./support/standalone-child.ts', import.meta.url));

interface Child {
  dataDir: string;
  port: number;
  lines: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  cleanup(): void;
}

/** The child process once it logged `service started` (its log lines kept as they come). */
async function startChild(extraEnv: Record<string, string> = {}): Promise<Child> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-runtime-standalone-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...extraEnv };
  delete env.NATS_URL;
  delete env.MONGODB_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const cleanup = () => {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (entry.msg === 'service started') resolve(entry.port as number);
      });
      void exited.then((code) => reject(new Error(`exited ${code} before starting`)));
    });
    return { dataDir, port, lines, exited, kill: (signal) => child.kill(signal), cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

describe('service runtime: a service run alone', function () {
  this.timeout(30_000);
  let child: Child | undefined;
  afterEach(() => child?.cleanup());

  it('serves health, readiness and metrics, and on SIGTERM stops cleanly and releases its store', async () => {
    child = await startChild();
    const { dataDir, lines } = child;
    const base = `http://127.0.0.1:${child.port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).to.deep.equal({ status: 'ok' });
    expect(await (await fetch(`${base}/readyz`)).json()).to.deep.equal({ status: 'ready' });
    expect(await (await fetch(`${base}/metrics`)).text()).to.match(
      /process_cpu_user_seconds_total\{service="runtime-child"\}/,
    );
    expect(fs.existsSync(path.join(dataDir, 'runtime-child', 'LOCK'))).to.equal(true);

    child.kill('SIGTERM');
    expect(await child.exited).to.equal(0);
    expect(fs.readFileSync(path.join(dataDir, 'stopped'), 'utf8')).to.equal('yes');
    expect(fs.existsSync(path.join(dataDir, 'runtime-child', 'LOCK')), 'store closed').to.equal(false);
    expect(lines.map((l) => l.msg)).to.include.members(['shutting down', 'stopped cleanly']);
    expect(lines.every((l) => l.service === 'runtime-child')).to.equal(true);
  });

  it('exits at once, with 1, on a second signal while a stop hangs', async () => {
    child = await startChild({ CHILD_STOP: 'hang' });
    const { lines } = child;
    child.kill('SIGTERM');
    await eventually(() => lines.some((l) => l.msg === 'shutting down'), 'the drain to begin');
    child.kill('SIGINT');
    expect(await child.exited).to.equal(1);
    expect(lines.find((l) => l.msg === 'second signal: exiting now')).to.include({ signal: 'SIGINT' });
    expect(lines.map((l) => l.msg)).not.to.include('stopped cleanly');
  });

  it('exits with 1 and says why when the stop fails', async () => {
    child = await startChild({ CHILD_STOP: 'fail' });
    child.kill('SIGTERM');
    expect(await child.exited).to.equal(1);
    expect(child.lines.map((l) => l.msg))
      .to.include('shutdown failed')
      .and.not.include('stopped cleanly');
  });
});
