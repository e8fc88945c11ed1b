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

/** The operator CLI run on `dataDir` with `env` beside it. */
const runCli = (dataDir: string, args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', 'services/gateway/src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
  });

/** What `token create` answers: the key and signing secret, shown this once. */
interface CreatedToken {
  id: string;
  name: string;
  apiKey: string;
  signingSecret: string;
  capabilities: string[];
}
/** A token as `token list` shows it (never its key). */
interface ListedToken {
  id: string;
  accountId: string | null;
}

/** The whole stack on `dataDir`, as an operator runs it beside the CLI. */
const startStackOn = (dataDir: string) =>
  startStack(loadBaseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' }), silentLogger());

describe('operator CLI', function () {
  this.timeout(60_000);
  let dataDir: string;
  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-'))));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  /** The CLI's answer to `args` on this test's data directory (JSON on stdout). */
  const cli = async <T>(...args: string[]): Promise<T> =>
    JSON.parse((await runCli(dataDir, args, { LOG_LEVEL: 'silent' })).stdout) as T;

  it('creates a token while the stack is stopped, and the stack then accepts its key', async () => {
    const created = await cli<CreatedToken>('token', 'create', '--name', 'ops', '--capability', 'knowledge:write');
    expect(Object.keys(created).sort()).to.deep.equal(['apiKey', 'capabilities', 'id', 'name', 'signingSecret']);
    expect(created.capabilities).to.deep.equal(['knowledge:write']);

    const stack = await startStackOn(dataDir);
    try {
      const res = await fetch(`http://127.0.0.1:${stack.port}/api/v1/projects`, {
        headers: { 'X-API-Key': created.apiKey },
      });
      expect(res.status).to.equal(200);
    } finally {
      await stack.stop();
    }
  });

  it('goes through the running stack instead of opening its files, and revokes at once', async () => {
    const stack = await startStackOn(dataDir);
    try {
      const created = await cli<CreatedToken>('token', 'create', '--name', 'live');
      const url = `http://127.0.0.1:${stack.port}/api/v1/projects`;
      expect((await fetch(url, { headers: { 'X-API-Key': created.apiKey } })).status).to.equal(200);

      const listed = await cli<ListedToken[]>('token', 'list');
      expect(listed.map((t) => t.id)).to.include(created.id);
      expect(JSON.stringify(listed)).not.to.contain(created.apiKey);

      const revoked = await cli<{ revokedAt: string | null }>('token', 'revoke', created.id);
      expect(revoked.revokedAt).to.be.a('string');
      const res = await fetch(url, { headers: { 'X-API-Key': created.apiKey } });
      expect(res.status).to.equal(401);
    } finally {
      await stack.stop();
    }
  });

  it('creates accounts and ties tokens to them', async () => {
    const account = await cli<{ email: string }>(
      'account',
      'create',
      '--email',
      'Ada@Example.com',
      '--password',
      'correct horse',
    );
    expect(account.email).to.equal('ada@example.com');
    const token = await cli<CreatedToken>('token', 'create', '--name', 'a', '--account', 'ada@example.com');
    const listed = await cli<ListedToken[]>('token', 'list');
    expect(listed.find((t) => t.id === token.id)?.accountId).to.match(/^acc_/);
  });

  it('explains its usage and rejects unknown capabilities', async () => {
    const usage = await runCli(dataDir, ['token']).catch((err: { code: number; stderr: string }) => err);
    expect((usage as { code: number }).code).to.equal(2);
    expect((usage as { stderr: string }).stderr).to.contain('token create --name NAME');

    const bad = await cli('token', 'create', '--name', 'x', '--capability', 'root').catch(
      (err: { stderr: string }) => err.stderr,
    );
    expect(bad).to.contain('capabilities');
  });
});
