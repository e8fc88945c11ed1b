/**
 * Bot accounts as an operator sets them up, for the whole-stack tests: a signed-in account on the
 * simulated platform, imported through the gateway's identity commands (what
 * `npm run cli -- bot-account add` runs).
 */
import type { SimAccount, SimPlatform } from '../../simulators/index.js';
import type { World } from './world.js';

export interface BotAccount {
  /** The platform's side: its display name, email and session. */
  sim: SimAccount;
  id: string;
  /** The name it was imported under (what `signedInAs` says). */
  name: string;
}

export interface ListedBotAccount {
  id: string;
  status: string;
  identity: string | null;
  meetingsInUse: number;
}

/** A platform account shown as `displayName`, signed in as `email`, imported as the bot account `name`. */
export async function importBotAccount(
  world: World,
  platform: SimPlatform,
  account: { displayName: string; email: string; name: string; maxMeetings?: number },
): Promise<BotAccount> {
  const sim = world.sim.account(platform, account.displayName, account.email);
  const added = (await world.t.stack.admin({
    command: 'bot-account.add',
    platform,
    name: account.name,
    session: JSON.stringify(sim.storageState),
    ...(account.maxMeetings && { maxMeetings: account.maxMeetings }),
  })) as { id: string; name: string };
  return { sim, id: added.id, name: added.name };
}

export async function listBotAccounts(world: World): Promise<ListedBotAccount[]> {
  return (await world.t.stack.admin({ command: 'bot-account.list' })) as ListedBotAccount[];
}

export async function removeBotAccount(world: World, id: string): Promise<void> {
  await world.t.stack.admin({ command: 'bot-account.remove', id });
}

/**
 * Numbered bot accounts for the cases of a describe block (`${displayName} N`, `${slug}N@bots.example.com`,
 * imported as `${slug}-N`), every one removed after each case so none carries over to the next. Call it
 * inside `describe`.
 */
export function useBotAccounts(world: () => World, displayName: string, slug: string) {
  let added = 0;
  afterEach(async () => {
    for (const { id } of await listBotAccounts(world())) await removeBotAccount(world(), id);
  });
  return {
    /** How many were added so far, in this block. */
    count: () => added,
    add(platform: SimPlatform, options: { maxMeetings?: number } = {}): Promise<BotAccount> {
      const n = ++added;
      return importBotAccount(world(), platform, {
        displayName: `${displayName} ${n}`,
        email: `${slug}${n}@bots.example.com`,
        name: `${slug}-${n}`,
        ...options,
      });
    },
  };
}
