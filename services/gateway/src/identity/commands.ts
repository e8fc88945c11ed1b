/**
 * The identity operations an operator runs from the CLI. They run either directly on the
 * gateway's store (when no process holds it) or inside the running gateway through its admin
 * socket, so two processes never write the same embedded files.
 */
import { z } from 'zod';
import { capability, errors, firstIssueMessage } from '@notetaker/contracts';
import type { AccountService } from './accounts.js';
import type { BotAccountService } from './bot-account-store.js';
import type { TokenService } from './tokens.js';

export const identityCommand = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('token.create'),
    name: z.string(),
    capabilities: z.array(capability).default([]),
    account: z.string().optional(),
  }),
  z.object({ command: z.literal('token.list') }),
  z.object({ command: z.literal('token.revoke'), id: z.string() }),
  z.object({ command: z.literal('account.create'), email: z.string(), password: z.string() }),
  z.object({
    command: z.literal('bot-account.add'),
    platform: z.string(),
    name: z.string(),
    /** The session file's text (the CLI reads the file; the path means nothing to a gateway elsewhere). */
    session: z.string(),
    maxMeetings: z.number().optional(),
  }),
  z.object({ command: z.literal('bot-account.list') }),
  z.object({ command: z.literal('bot-account.remove'), id: z.string() }),
]);

export interface IdentityServices {
  tokens: TokenService;
  accounts: AccountService;
  botAccounts: BotAccountService;
  /** Live meetings per bot account; absent (the CLI on the store directly), every count is 0. */
  meetingsInUse?: () => Promise<Record<string, number>>;
}

export async function runIdentityCommand(input: unknown, services: IdentityServices): Promise<unknown> {
  const parsed = identityCommand.safeParse(input);
  if (!parsed.success) throw errors.badRequest(firstIssueMessage(parsed.error));
  const cmd = parsed.data;
  switch (cmd.command) {
    case 'token.create': {
      let accountId: string | null = null;
      if (cmd.account) {
        const account = await services.accounts.findByEmail(cmd.account);
        if (!account) throw errors.notFound(`No account for ${cmd.account}`);
        accountId = account.id;
      }
      const created = await services.tokens.create({ name: cmd.name, capabilities: cmd.capabilities, accountId });
      return {
        id: created.id,
        name: created.name,
        apiKey: created.apiKey,
        signingSecret: created.signingSecret,
        capabilities: created.capabilities,
      };
    }
    case 'token.list':
      return services.tokens.list();
    case 'token.revoke':
      return services.tokens.revoke(cmd.id);
    case 'account.create':
      return services.accounts.create(cmd.email, cmd.password);
    case 'bot-account.add': {
      const added = await services.botAccounts.add({
        platform: cmd.platform,
        name: cmd.name,
        storageStateText: cmd.session,
        maxMeetings: cmd.maxMeetings,
      });
      return {
        id: added.id,
        platform: added.platform,
        name: added.name,
        status: added.status,
        maxMeetings: added.maxMeetings,
      };
    }
    case 'bot-account.list': {
      const [accounts, inUse] = await Promise.all([
        services.botAccounts.list(),
        services.meetingsInUse?.() ?? ({} as Record<string, number>),
      ]);
      return accounts.map((a) => ({ ...a, meetingsInUse: inUse[a.id] ?? 0 }));
    }
    case 'bot-account.remove': {
      const removed = await services.botAccounts.remove(cmd.id);
      return { id: removed.id, platform: removed.platform, name: removed.name, removed: true };
    }
  }
}
