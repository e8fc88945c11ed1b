/**
 * Which bot account a signed-in bot uses. The gateway keeps the accounts and their storage states
 * (encrypted); the registry keeps their slots: one document per live meeting an account is in,
 * whose `_id` is `<accountId>#<k>` with k below the account's `maxMeetings`. The `_id` is unique in
 * the store, so two starts (or two registries) never put an account in more meetings than it may
 * hold. A slot whose meeting has ended is stale and is taken over, so a crash leaks no slot.
 * (A worker's bot seats are another thing: worker/seats.ts.)
 */
import {
  errors,
  isTerminalStatus,
  routes,
  ServiceError,
  type BotAccountInfo,
  type StorageState,
  type Platform,
  type SignInFailure,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { Collection, Store } from '@notetaker/store';
import type { Records } from './records.js';

type SlotDoc = { _id: string; accountId: string; meetingId: string; takenAt: string };

export interface GrantedAccount {
  id: string;
  name: string;
  /** The account's storage state (`session` on the wire: protocol.ts `grantedAccount`). */
  session: StorageState;
}

/** `none`: no usable account of the platform (none set up, or all signed out); `busy`: all in as many meetings as they may. */
export type TakeResult = { account: GrantedAccount } | { refused: 'none' | 'busy' };

export class AccountPicker {
  private readonly slots: Collection<SlotDoc>;

  constructor(
    store: Store,
    private readonly records: Records,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {
    // The collection's name is older than the word "slot": stored data keeps it.
    this.slots = store.collection<SlotDoc>('account_seats');
  }

  async init(): Promise<void> {
    await this.slots.createIndex({ meetingId: 1 });
  }

  /** Live meetings per account; stale slots (their meeting over) are removed on the way. */
  async usage(): Promise<Record<string, number>> {
    const slots = await this.slots.find({});
    const live = await this.liveMeetings(slots.map((slot) => slot.meetingId));
    const inUse: Record<string, number> = {};
    for (const slot of slots) {
      if (live.has(slot.meetingId)) inUse[slot.accountId] = (inUse[slot.accountId] ?? 0) + 1;
      else await this.slots.deleteOne({ _id: slot._id, meetingId: slot.meetingId });
    }
    return inUse;
  }

  /**
   * A slot of the least busy usable account of the platform (ties: the one used longest ago, so
   * accounts take turns), skipping `exclude` (accounts this meeting already tried), with its
   * storage state.
   */
  async take(platform: Platform, meetingId: string, exclude: string[] = []): Promise<TakeResult> {
    const accounts = (await this.accountsOf(platform)).filter((a) => a.status === 'active' && !exclude.includes(a.id));
    if (accounts.length === 0) return { refused: 'none' };
    const inUse = await this.usage();
    const load = (a: BotAccountInfo) => (inUse[a.id] ?? 0) / a.maxMeetings;
    accounts.sort((a, b) => load(a) - load(b) || (a.lastUsedAt ?? '').localeCompare(b.lastUsedAt ?? ''));
    for (const account of accounts) {
      if ((inUse[account.id] ?? 0) >= account.maxMeetings || !(await this.claimSlot(account, meetingId))) continue;
      try {
        const { session: storageState } = await call(this.bus, routes.identity.botAccountStorageState, {
          accountId: account.id,
        });
        this.report(account.id, { usedAt: new Date().toISOString() });
        return { account: { id: account.id, name: account.name, session: storageState } };
      } catch (err) {
        await this.release(meetingId);
        // Removed between the list and now: the next one.
        if (err instanceof ServiceError && err.status === 404) continue;
        throw err;
      }
    }
    return { refused: 'busy' };
  }

  async release(meetingId: string): Promise<void> {
    await this.slots.deleteMany({ meetingId });
  }

  /** The platform no longer accepts the account's storage state (its sign-in page): the gateway marks it signed out. */
  signedOut(accountId: string): void {
    this.report(accountId, { signedOut: true });
  }

  /** The identity the platform showed for the account, for the accounts list. */
  identitySeen(accountId: string, identity: string): void {
    this.report(accountId, { identity: identity.slice(0, 200) });
  }

  private report(accountId: string, what: { signedOut?: boolean; identity?: string; usedAt?: string }): void {
    call(this.bus, routes.identity.botAccountReport, { accountId, ...what }).catch((err: unknown) =>
      this.logger.warn({ err, accountId }, 'could not report on a bot account'),
    );
  }

  private async accountsOf(platform: Platform): Promise<BotAccountInfo[]> {
    try {
      return (await call(this.bus, routes.identity.botAccounts, { platform })).accounts;
    } catch (err) {
      if (err instanceof ServiceError && err.status < 500) throw err;
      throw errors.unavailable('Bot accounts are unavailable (the gateway did not answer); try again');
    }
  }

  private async claimSlot(account: BotAccountInfo, meetingId: string): Promise<boolean> {
    for (let k = 0; k < account.maxMeetings; k++) {
      const _id = `${account.id}#${k}`;
      try {
        await this.slots.insertOne({ _id, accountId: account.id, meetingId, takenAt: new Date().toISOString() });
        return true;
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
      }
      const held = await this.slots.findOne({ _id });
      if (held && !(await this.liveMeetings([held.meetingId])).has(held.meetingId)) {
        await this.slots.deleteOne({ _id, meetingId: held.meetingId });
        k--; // the same slot again, now free
      }
    }
    return false;
  }

  private async liveMeetings(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const docs = await this.records.meetings.find({ _id: { $in: [...new Set(ids)] } });
    return new Set(docs.filter((doc) => !isTerminalStatus(doc.status)).map((doc) => doc._id));
  }
}

/**
 * protocol.account: a meeting's bot needs an account (the guest was refused) or another one (the
 * platform signed the last one out). Accounts this meeting tried are not offered again, so a
 * meeting runs out of accounts instead of looping.
 */
export async function nextAccount(
  deps: { records: Records; accounts: AccountPicker; logger: Logger },
  request: { meetingId: string; workerId: string; signedOut: string | null },
): Promise<{ account: GrantedAccount | null; reason: SignInFailure | null }> {
  const { records, accounts } = deps;
  const doc = await records.meetings.findOne({ _id: request.meetingId, workerId: request.workerId });
  if (!doc || isTerminalStatus(doc.status)) return { account: null, reason: 'sign_in_required' };
  const tried = doc.triedAccounts ?? [];
  let signedOutBefore = doc.accountSignedOut === true;
  if (request.signedOut) {
    signedOutBefore = true;
    accounts.signedOut(request.signedOut);
    await accounts.release(doc._id);
  }
  const taken = await accounts.take(doc.platform, doc._id, tried);
  const account = 'account' in taken ? taken.account : null;
  await records.meetings.updateOne(
    { _id: doc._id },
    {
      $set: {
        accountId: account?.id ?? null,
        signedInAs: account?.name ?? null,
        triedAccounts: account ? [...tried, account.id] : tried,
        accountSignedOut: signedOutBefore,
      },
    },
  );
  if (account) {
    deps.logger.info({ meetingId: doc._id, accountId: account.id, signedInAs: account.name }, 'bot joins signed in');
    return { account, reason: null };
  }
  return { account: null, reason: signedOutBefore ? 'bot_account_signed_out' : 'sign_in_required' };
}
