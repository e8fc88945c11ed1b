/**
 * Starts the real stack in-process for a test: temporary DATA_DIR, gateway on a free port,
 * in-process bus (or NATS_URL when a test passes one). Tokens are created through the gateway's
 * own identity service, exactly as the CLI does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadBaseConfig } from '@notetaker/config';
import { createLogger, type Logger } from '@notetaker/observability';
import { duplicateKeys } from './duplicate-keys.js';
import { startStack, type Stack, type StackOptions } from '@notetaker/stack';

export interface TestStack {
  baseUrl: string;
  dataDir: string;
  contentRoot: string;
  stack: Stack;
  /** A fresh API token; `capabilities` default to knowledge:write. */
  createToken(capabilities?: string[]): Promise<{ id: string; apiKey: string; signingSecret: string }>;
  revokeToken(id: string): Promise<void>;
  api(pathname: string, init?: RequestInit & { apiKey?: string; json?: unknown }): Promise<Response>;
  /** The stack's log lines at warn level and above, parsed. */
  warnings(): Array<Record<string, unknown>>;
  /** Every log line so far (the first 20,000), as written: what an operator's log store would hold. */
  logText(): string;
  stop(): Promise<void>;
}

export async function startTestStack(env: Record<string, string> = {}, options: StackOptions = {}): Promise<TestStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-test-'));
  const config = loadBaseConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    SKILLS_DIR: path.resolve('skills'),
    LOG_LEVEL: 'silent',
    // A test never runs apt-get (a stack without a browser would install one where it may).
    BOT_INSTALL_BROWSER: 'false',
    ...env,
  });
  const logs = keyCheckingLogger();
  const stack = await startStack(config, logs.logger, options);
  const baseUrl = `http://127.0.0.1:${stack.port}`;
  const identity = (command: Record<string, unknown>) => stack.admin(command);
  return {
    baseUrl,
    dataDir,
    contentRoot: config.contentRoot,
    stack,
    async createToken(capabilities = ['knowledge:write']) {
      return (await identity({ command: 'token.create', name: 'test', capabilities })) as {
        id: string;
        apiKey: string;
        signingSecret: string;
      };
    },
    async revokeToken(id) {
      await identity({ command: 'token.revoke', id });
    },
    api(pathname, init = {}) {
      const headers = new Headers(init.headers);
      if (init.apiKey) headers.set('X-API-Key', init.apiKey);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(`${baseUrl}/api/v1${pathname}`, { ...init, headers, body });
    },
    warnings: () => logs.warnings.map((line) => JSON.parse(line) as Record<string, unknown>),
    logText: () => logs.all.join('\n'),
    async stop() {
      await stack.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (logs.twice.length > 0) throw new Error(`log lines with a key twice: ${logs.twice.slice(0, 3).join('\n')}`);
    },
  };
}

/**
 * The stack's logs, written nowhere but each line checked: a key twice in one line is a defect
 * (log stores reject such lines), found by every whole-stack test when its stack stops.
 */
function keyCheckingLogger(): { logger: Logger; twice: string[]; warnings: string[]; all: string[] } {
  const twice: string[] = [];
  const warnings: string[] = [];
  const all: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line && all.length < 20_000) all.push(line);
        if (line && duplicateKeys(line).length > 0 && twice.length < 10) twice.push(line);
        if (/^\{"level":(4|5|6)0,/.test(line) && warnings.length < 1000) warnings.push(line);
      }
      done();
    },
  });
  return { logger: createLogger({ process: 'stack', level: 'info', destination: sink }), twice, warnings, all };
}
