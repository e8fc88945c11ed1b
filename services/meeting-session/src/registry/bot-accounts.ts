/**
 * Which bot account a signed-in bot uses. The gateway keeps the accounts and their sessions
 * (encrypted); the registry keeps their seats: one document per live meeting an account is in,
 * whose `_id` is `<accountId>#<k>` with k below the account's `maxMeetings`. The `_id` is unique in
 * the store, so two starts (or two registries) never put an account in more meetings than it may
 * hold. A seat whose meeting has ended is stale and is taken over, so a crash leaks no seat.
 */
import {
  errors,
  isTerminalStatus,
  routes,
  ServiceError,
  type BotAccountInfo,
  type BrowserSession,
  type Platform,
  type SignInFailure,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
import type { Collection, Store } from '@notetaker/store';
import type { Records } from './records.js';

type SeatDoc = { _id: string; accountId: string; meetingId: string; takenAt: string };

export interface GrantedAccount {
  id: string;
  name: string;
  session: BrowserSession;
}

/** `none`: no usable account of the platform (none set up, or all signed out); `busy`: all in as many meetings as they may. */
export type TakeResult = { account: GrantedAccount } | { refused: 'none' | 'busy' };

export class AccountSeats {
  private readonly seats: Collection<SeatDoc>;

  constructor(
    store: Store,
    private readonly records: Records,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {
    this.seats = store.collection<SeatDoc>('account_seats');
  }

  async init(): Promise<void> {
    await this.seats.createIndex({ meetingId: 1 });
  }

  /** Live meetings per account; stale seats (their meeting over) are removed on the way. */
  async usage(): Promise<Record<string, number>> {
    const seats = await this.seats.find({});
    const live = await this.liveMeetings(seats.map((seat) => seat.meetingId));
    const inUse: Record<string, number> = {};
    for (const seat of seats) {
      if (live.has(seat.meetingId)) inUse[seat.accountId] = (inUse[seat.accountId] ?? 0) + 1;
      else await this.seats.deleteOne({ _id: seat._id, meetingId: seat.meetingId });
    }
    return inUse;
  }

  /**
   * A seat of the least busy usable account of the platform (ties: the one used longest ago, so
   * accounts take turns), skipping `exclude` (accounts this meeting already tried), with its session.
   */
  async take(platform: Platform, meetingId: string, exclude: string[] = []): Promise<TakeResult> {
    const accounts = (await this.accountsOf(platform)).filter((a) => a.status === 'active' && !exclude.includes(a.id));
    if (accounts.length === 0) return { refused: 'none' };
    const inUse = await this.usage();
    const load = (a: BotAccountInfo) => (inUse[a.id] ?? 0) / a.maxMeetings;
    accounts.sort((a, b) => load(a) - load(b) || (a.lastUsedAt ?? '').localeCompare(b.lastUsedAt ?? ''));
    for (const account of accounts) {
      if ((inUse[account.id] ?? 0) >= account.maxMeetings || !(await this.claimSeat(account, meetingId))) continue;
      try {
        const { session } = await call(this.bus, routes.identity.botAccountSession, { accountId: account.id });
        this.report(account.id, { usedAt: new Date().toISOString() });
        return { account: { id: account.id, name: account.name, session } };
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
    await this.seats.deleteMany({ meetingId });
  }

  /** The platform sent the account's session to its sign-in page: the gateway marks it signed out. */
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

  private async claimSeat(account: BotAccountInfo, meetingId: string): Promise<boolean> {
    for (let k = 0; k < account.maxMeetings; k++) {
      const _id = `${account.id}#${k}`;
      try {
        await this.seats.insertOne({ _id, accountId: account.id, meetingId, takenAt: new Date().toISOString() });
        return true;
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
      }
      const held = await this.seats.findOne({ _id });
      if (held && !(await this.liveMeetings([held.meetingId])).has(held.meetingId)) {
        await this.seats.deleteOne({ _id, meetingId: held.meetingId });
        k--; // the same seat again, now free
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
  deps: { records: Records; seats: AccountSeats; logger: Logger },
  request: { meetingId: string; workerId: string; signedOut: string | null },
): Promise<{ account: GrantedAccount | null; reason: SignInFailure | null }> {
  const { records, seats } = deps;
  const doc = await records.meetings.findOne({ _id: request.meetingId, workerId: request.workerId });
  if (!doc || isTerminalStatus(doc.status)) return { account: null, reason: 'sign_in_required' };
  const tried = doc.triedAccounts ?? [];
  let signedOutBefore = doc.accountSignedOut === true;
  if (request.signedOut) {
    signedOutBefore = true;
    seats.signedOut(request.signedOut);
    await seats.release(doc._id);
  }
  const taken = await seats.take(doc.platform, doc._id, tried);
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
