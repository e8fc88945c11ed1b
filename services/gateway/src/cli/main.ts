/**
 * Operator CLI: `npm run cli -- token create --name NAME [--capability knowledge:write]...
 * [--account EMAIL]`, `token list`, `token revoke ID`, `account create --email E --password P`,
 * `bot-account add|list|remove|login` (see USAGE).
 * Prints one JSON value. Works whether or not the stack is running (see identity/commands.ts).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { platform as platformSchema, ServiceError, type Platform, type WireError } from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/config';
import { openStore } from '@notetaker/store';
import { adminSocketPath, callAdminSocket } from '../identity/admin-socket.js';
import { MAX_MEETINGS_PER_ACCOUNT } from '../identity/bot-account-store.js';
import { runIdentityCommand } from '../identity/commands.js';
import { MAX_STORAGE_STATE_BYTES } from '../identity/storage-state-file.js';
import { startIdentity } from '../service.js';
import { captureStorageState } from './login.js';

const USAGE = `usage:
  cli token create --name NAME [--capability knowledge:write]... [--account EMAIL]
  cli token list
  cli token revoke ID
  cli account create --email EMAIL --password PASSWORD
  cli bot-account add --platform google_meet|teams|zoom --name LABEL --session FILE [--max-meetings N]
  cli bot-account list
  cli bot-account remove ID
  cli bot-account login --platform google_meet|teams|zoom --name LABEL [--max-meetings N] [--out FILE]`;

function parseCommand(argv: string[]): Record<string, unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      capability: { type: 'string', multiple: true },
      account: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      platform: { type: 'string' },
      session: { type: 'string' },
      'max-meetings': { type: 'string' },
      out: { type: 'string' },
    },
  });
  const [noun, verb, arg] = positionals;
  const command = `${noun}.${verb}`;
  switch (command) {
    case 'token.create':
      if (!values.name) break;
      return {
        command,
        name: values.name,
        // Validated with the command schema where it runs, like every other input.
        capabilities: values.capability ?? [],
        account: values.account,
      };
    case 'token.list':
      return { command };
    case 'token.revoke':
      if (!arg) break;
      return { command, id: arg };
    case 'account.create':
      if (!values.email || !values.password) break;
      return { command, email: values.email, password: values.password };
    case 'bot-account.add':
      if (!values.platform || !values.name || !values.session) break;
      return {
        command,
        platform: values.platform,
        name: values.name,
        // The CLI reads the file: a gateway reached through its socket may not see this path.
        session: readStorageStateFile(values.session),
        maxMeetings: maxMeetings(values['max-meetings']),
      };
    case 'bot-account.list':
      return { command };
    case 'bot-account.remove':
      if (!arg) break;
      return { command, id: arg };
    case 'bot-account.login': {
      if (!values.platform || !values.name) break;
      const platform = platformSchema.safeParse(values.platform);
      if (!platform.success) throw new Error('platform must be google_meet, teams or zoom');
      return {
        command,
        platform: platform.data,
        name: values.name,
        maxMeetings: maxMeetings(values['max-meetings']),
        out: values.out,
      };
    }
  }
  throw new UsageError();
}

class UsageError extends Error {}

function readStorageStateFile(file: string): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    throw new Error(`cannot read the session file ${file} (${(err as NodeJS.ErrnoException).code})`);
  }
  if (size > MAX_STORAGE_STATE_BYTES) throw new Error('The session file is over 1 MB');
  return fs.readFileSync(file, 'utf8');
}

function maxMeetings(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,3}$/.test(value))
    throw new Error(`--max-meetings must be a whole number from 1 to ${MAX_MEETINGS_PER_ACCOUNT}`);
  return Number(value);
}

/** `login` signs in here, on the operator's desktop, then adds the account like `add` does. */
async function login(cmd: Record<string, unknown>): Promise<Record<string, unknown>> {
  const state = await captureStorageState(cmd.platform as Platform, (line) => process.stderr.write(`${line}\n`));
  if (typeof cmd.out === 'string') {
    // Written before the add, so a refused add (a duplicate name) does not lose the sign-in.
    fs.writeFileSync(cmd.out, state, { mode: 0o600 });
    process.stderr.write(`Session saved to ${cmd.out}: keep it secret, and delete it once imported.\n`);
  }
  return {
    command: 'bot-account.add',
    platform: cmd.platform,
    name: cmd.name,
    session: state,
    maxMeetings: cmd.maxMeetings,
  };
}

async function execute(command: Record<string, unknown>): Promise<unknown> {
  const config = loadBaseConfig();
  let store;
  try {
    store = await openStore({ service: 'gateway', dataDir: config.dataDir, mongodbUrl: config.mongodbUrl });
  } catch (err) {
    // A running gateway holds the embedded files: ask it instead of writing beside it.
    if (!(err instanceof ServiceError && err.code === 'store_locked')) throw err;
    const reply = (await callAdminSocket(adminSocketPath(config.dataDir), command)) as
      { ok: true; result: unknown } | { ok: false; error: WireError };
    if (!reply.ok) throw ServiceError.fromWire(reply.error);
    return reply.result;
  }
  try {
    return await runIdentityCommand(command, await startIdentity({ store, config }));
  } finally {
    await store.close();
  }
}

try {
  const command = parseCommand(process.argv.slice(2));
  const result = await execute(command.command === 'bot-account.login' ? await login(command) : command);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (err) {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
