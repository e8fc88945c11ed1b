import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { loadBaseConfig } from '@notetaker/config';
import { silentLogger } from '@notetaker/observability';
import { startStack } from '@notetaker/stack';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');

async function cli(dataDir: string, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'services/gateway/src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  });
  return JSON.parse(stdout);
}

describe('operator CLI', function () {
  this.timeout(60_000);
  let dataDir: string;
  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-'))));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates a token while the stack is stopped, and the stack then accepts its key', async () => {
    const created = (await cli(
      dataDir,
      'token',
      'create',
      '--name',
      'ops',
      '--capability',
      'knowledge:write',
    )) as Record<string, unknown>;
    expect(Object.keys(created).sort()).to.deep.equal(['apiKey', 'capabilities', 'id', 'name', 'signingSecret']);
    expect(created.capabilities).to.deep.equal(['knowledge:write']);

    const stack = await startStack(
      loadBaseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }),
      silentLogger(),
    );
    try {
      const res = await fetch(`http://127.0.0.1:${stack.port}/api/v1/projects`, {
        headers: { 'X-API-Key': String(created.apiKey) },
      });
      expect(res.status).to.equal(200);
    } finally {
      await stack.stop();
    }
  });

  it('goes through the running stack instead of opening its files, and revokes at once', async () => {
    const stack = await startStack(
      loadBaseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }),
      silentLogger(),
    );
    try {
      const created = (await cli(dataDir, 'token', 'create', '--name', 'live')) as { id: string; apiKey: string };
      const url = `http://127.0.0.1:${stack.port}/api/v1/projects`;
      expect((await fetch(url, { headers: { 'X-API-Key': created.apiKey } })).status).to.equal(200);

      const listed = (await cli(dataDir, 'token', 'list')) as Array<Record<string, unknown>>;
      expect(listed.map((t) => t.id)).to.include(created.id);
      expect(JSON.stringify(listed)).not.to.contain(created.apiKey);

      const revoked = (await cli(dataDir, 'token', 'revoke', created.id)) as { revokedAt: string | null };
      expect(revoked.revokedAt).to.be.a('string');
      const res = await fetch(url, { headers: { 'X-API-Key': created.apiKey } });
      expect(res.status).to.equal(401);
    } finally {
      await stack.stop();
    }
  });

  it('creates accounts and ties tokens to them', async () => {
    const account = (await cli(
      dataDir,
      'account',
      'create',
      '--email',
      'Ada@Example.com',
      '--password',
      'correct horse',
    )) as { email: string };
    expect(account.email).to.equal('ada@example.com');
    const token = (await cli(dataDir, 'token', 'create', '--name', 'a', '--account', 'ada@example.com')) as {
      id: string;
    };
    const listed = (await cli(dataDir, 'token', 'list')) as Array<{ id: string; accountId: string | null }>;
    expect(listed.find((t) => t.id === token.id)?.accountId).to.match(/^acc_/);
  });

  it('explains its usage and rejects unknown capabilities', async () => {
    const usage = await run(process.execPath, ['--import', 'tsx', 'services/gateway/src/cli/main.ts', 'token'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir },
    }).catch((err: { code: number; stderr: string }) => err);
    expect((usage as { code: number }).code).to.equal(2);
    expect((usage as { stderr: string }).stderr).to.contain('token create --name NAME');

    const bad = await cli(dataDir, 'token', 'create', '--name', 'x', '--capability', 'root').catch(
      (err: { stderr: string }) => err.stderr,
    );
    expect(bad).to.contain('capabilities');
  });
});
