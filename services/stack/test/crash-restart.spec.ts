/**
 * `npm start` as an operator runs it, killed as a container runtime, a supervisor or the OOM
 * killer of a cgroup kills it: SIGKILL to the whole process group (npm, tsx and node at once),
 * then started again at once. Every start must come up healthy (no "data folder is open in
 * process …" from a LOCK of the dead tree), every write acknowledged before a kill must be there
 * after it, and every log line must hold each key once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { duplicateKeys } from '../../../test/support/duplicate-keys.js';
import { eventually } from '../../../test/support/wait.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RESTARTS = 20;

interface Started {
  app: ChildProcess;
  url: string;
  lines: string[];
}

describe('npm start after its whole process tree was SIGKILLed', function () {
  this.timeout(15 * 60_000);
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let running: Started | null = null;

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-restart-'));
    env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
    delete env.NATS_URL; // the embedded default: in-process bus, files under DATA_DIR
    delete env.MONGODB_URL;
  });
  after(() => {
    if (running) killGroup(running.app);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npm start` in a process group of its own; resolves once /readyz answers 200. */
  async function start(): Promise<Started> {
    const app = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    app.stderr!.on('data', (chunk) => (stderr += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: app.stdout! }).on('line', (line) => {
        lines.push(line);
        if (line.includes('"stack started"')) resolve((JSON.parse(line) as { url: string }).url);
      });
      app.on('exit', (code) => reject(new Error(`npm start exited (${code}) before it started: ${stderr}`)));
    });
    await eventually(
      async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200,
      `${url}/readyz to answer 200`,
      30_000,
    );
    return { app, url, lines };
  }

  it(`comes up healthy ${RESTARTS} times in a row, every acknowledged write kept, each log key once`, async () => {
    const cli = spawnSync('npm', ['run', '--silent', 'cli', '--', 'token', 'create', '--name', 'restarts'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).to.equal(0);
    const { apiKey } = JSON.parse(cli.stdout) as { apiKey: string };
    const headers = { 'X-API-Key': apiKey, 'Content-Type': 'application/json' };

    const written: string[] = [];
    const toHealthyMs: number[] = [];
    const logLines: string[] = [];
    for (let i = 0; i <= RESTARTS; i++) {
      const began = performance.now();
      running = await start();
      toHealthyMs.push(performance.now() - began);

      const tasks = await fetch(`${running.url}/api/v1/tasks`, { headers });
      const names = ((await tasks.json()) as { tasks: Array<{ name: string }> }).tasks.map((t) => t.name);
      expect(names, `start ${i}`).to.include.members(written);

      if (i < RESTARTS) {
        const name = `restart.${i}`;
        const created = await fetch(`${running.url}/api/v1/tasks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name, skillName: 'daily-meeting-digest', cronExpression: '0 18 * * *' }),
        });
        expect(created.status, `create ${name}`).to.equal(201);
        written.push(name); // acknowledged: it must survive what follows
      }
      killGroup(running.app);
      logLines.push(...running.lines);
      running = null;
    }

    const jsonLines = logLines.filter((line) => line.startsWith('{'));
    expect(jsonLines.length).to.be.above(RESTARTS * 5);
    const twice = jsonLines.map((line) => ({ line, keys: duplicateKeys(line) })).filter((l) => l.keys.length > 0);
    expect(twice, 'log lines with a key twice').to.deep.equal([]);
    const tookOver = jsonLines.filter((line) => line.includes('took over the lock of a process that is gone'));
    expect(tookOver.length, 'stale locks reported').to.be.at.least(RESTARTS);

    const sorted = [...toHealthyMs].sort((a, b) => a - b);
    console.log(
      `      ${RESTARTS + 1} starts, ${RESTARTS} kills of the process group: to healthy median ${Math.round(sorted[RESTARTS >> 1])} ms, max ${Math.round(sorted.at(-1)!)} ms`,
    );
  });
});

/** SIGKILL to the whole group at once, as a container runtime does: nothing gets to clean up. */
function killGroup(app: ChildProcess): void {
  try {
    process.kill(-app.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}
