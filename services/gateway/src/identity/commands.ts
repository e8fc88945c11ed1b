/**
 * The identity operations an operator runs from the CLI. They run either directly on the
 * gateway's store (when no process holds it) or inside the running gateway through its admin
 * socket, so two processes never write the same embedded files.
 */
import { z } from 'zod';
import { capability, errors, firstIssueMessage } from '@notetaker/contracts';
import type { AccountService } from './accounts.js';
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
]);

export async function runIdentityCommand(
  input: unknown,
  services: { tokens: TokenService; accounts: AccountService },
): Promise<unknown> {
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
  }
}
