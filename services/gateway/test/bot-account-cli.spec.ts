/**
 * `npm run cli -- bot-account …` as an operator runs it: a subprocess on the store directly, and
 * through a running gateway's admin socket (a session file of nearly 1 MB fits its request).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { connectBus } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import { openStore } from '@notetaker/store';
import { adminSocketPath, callAdminSocket } from '../src/identity/admin-socket.js';
import { gatewayService } from '../src/index.js';
import { COOKIE_SECRET, cookieArray, googleState, STORAGE_SECRET, teamsState } from './identity/storage-states.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(dataDir: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return run(process.execPath, ['--import', 'tsx', 'services/gateway/src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

async function ok(dataDir: string, ...args: string[]): Promise<any> {
  const out = await cli(dataDir, args);
  expect(out.code, out.stderr).to.equal(0);
  expect(out.stdout).not.to.contain(COOKIE_SECRET);
  return JSON.parse(out.stdout);
}

/** `bot-account add`'s arguments, then any more (e.g. '--max-meetings', '3'). */
function addArgs(platform: string, name: string, session: string, ...more: string[]): string[] {
  return ['bot-account', 'add', '--platform', platform, '--name', name, '--session', session, ...more];
}

describe('operator CLI: bot accounts', function () {
  this.timeout(120_000);
  let dataDir: string;
  const file = (name: string, text: string) => {
    const at = path.join(dataDir, name);
    fs.writeFileSync(at, text);
    return at;
  };
  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bots-'))));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('adds from either file format, lists without sessions, refuses a bad file and removes', async () => {
    const meet = await ok(
      dataDir,
      ...addArgs('google_meet', 'Meet bot', file('state.json', googleState()), '--max-meetings', '3'),
    );
    expect(Object.keys(meet).sort()).to.deep.equal(['id', 'maxMeetings', 'name', 'platform', 'status']);
    expect(meet).to.deep.include({ platform: 'google_meet', name: 'Meet bot', status: 'active', maxMeetings: 3 });
    const fromArray = await ok(dataDir, ...addArgs('google_meet', 'Array bot', file('cookies.json', cookieArray())));
    expect(fromArray.maxMeetings).to.equal(1);

    for (const [name, text, message] of [
      ['bad.json', 'this is not json', 'error: The session file is not JSON'],
      ['foreign.json', googleState(), 'error: The session file has no cookies for microsoft.com'],
    ]) {
      const refused = await cli(dataDir, addArgs('teams', 'T', file(name, text)));
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.contain(message);
      expect(refused.stdout).to.equal('');
    }
    const tooBig = await cli(dataDir, addArgs('teams', 'T', file('big.json', ' '.repeat(1024 * 1024 + 1))));
    expect(tooBig.code).to.equal(1);
    expect(tooBig.stderr).to.contain('The session file is over 1 MB');
    const missing = await cli(dataDir, addArgs('teams', 'T', path.join(dataDir, 'nope.json')));
    expect(missing.stderr).to.contain('cannot read the session file');

    const listed = await ok(dataDir, 'bot-account', 'list');
    expect(listed.map((a: { name: string }) => a.name)).to.deep.equal(['Meet bot', 'Array bot']);
    expect(listed[0]).to.deep.include({ meetingsInUse: 0, lastUsedAt: null, identity: null, status: 'active' });
    expect(JSON.stringify(listed)).not.to.contain(STORAGE_SECRET);

    expect(await ok(dataDir, 'bot-account', 'remove', meet.id)).to.deep.include({ id: meet.id, removed: true });
    expect((await ok(dataDir, 'bot-account', 'list')).map((a: { id: string }) => a.id)).to.deep.equal([fromArray.id]);
    const again = await cli(dataDir, ['bot-account', 'remove', meet.id]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain('Bot account not found');
  });

  it('goes through a running gateway, whose admin socket takes a session file of nearly 1 MB', async () => {
    const bus = await connectBus({ name: 'cli-bots' });
    const store = await openStore({ service: 'gateway', dataDir });
    const gateway = await gatewayService().start({
      bus,
      store,
      config: loadBaseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', SKILLS_DIR: dataDir }),
      logger: silentLogger(),
      metrics: createMetricsRegistry('gateway'),
    });
    try {
      // Quotes double when the file's text travels as a JSON string: the worst case of its size.
      const state = JSON.parse(teamsState());
      state.origins[0].localStorage.push({ name: 'big', value: '"'.repeat(480_000) });
      const text = JSON.stringify(state);
      expect(text.length).to.be.within(900_000, 1024 * 1024);
      const added = await ok(dataDir, ...addArgs('teams', 'Big', file('big.json', text)));
      const listed = await ok(dataDir, 'bot-account', 'list');
      expect(listed.map((a: { id: string }) => a.id)).to.deep.equal([added.id]);
      // Beyond the socket's limit the CLI is told why instead of being cut off.
      const huge = await callAdminSocket(adminSocketPath(dataDir), {
        command: 'bot-account.add',
        session: 'x'.repeat(3 * 1024 * 1024),
      });
      expect(huge).to.deep.include({ ok: false }).and.have.nested.property('error.status', 413);
      await ok(dataDir, 'bot-account', 'remove', added.id);
      expect(await ok(dataDir, 'bot-account', 'list')).to.deep.equal([]);
    } finally {
      await gateway.stop();
      await bus.close();
      await store.close();
    }
  });

  it('refuses login without a display, saying how to go on', async () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const out = await cli(dataDir, ['bot-account', 'login', '--platform', 'google_meet', '--name', 'x'], env);
    expect(out.code).to.equal(1);
    expect(out.stderr).to.contain(
      'bot-account login needs a display: run it on a desktop, then import the file with bot-account add',
    );
    const usage = await cli(dataDir, ['bot-account', 'add', '--platform', 'teams'], env);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.contain('bot-account add --platform google_meet|teams|zoom --name LABEL --session FILE');
  });
});
