/**
 * Operator CLI: `npm run cli -- token create --name NAME [--capability knowledge:write]...
 * [--account EMAIL]`, `token list`, `token revoke ID`, `account create --email E --password P`.
 * Prints one JSON value. Works whether or not the stack is running (see identity/commands.ts).
 */
import { parseArgs } from 'node:util';
import { ServiceError, type WireError } from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/kit';
import { openStore } from '@notetaker/store';
import { adminSocketPath, callAdminSocket } from '../identity/admin-socket.js';
import { runIdentityCommand } from '../identity/commands.js';
import { startIdentity } from '../service.js';

const USAGE = `usage:
  cli token create --name NAME [--capability knowledge:write]... [--account EMAIL]
  cli token list
  cli token revoke ID
  cli account create --email EMAIL --password PASSWORD`;

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
  }
  throw new UsageError();
}

class UsageError extends Error {}

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
  const result = await execute(parseCommand(process.argv.slice(2)));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (err) {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
