/**
 * First-run setup: exactly one visitor may create the owner account. Two setup forms sent at
 * once both see "no account yet", so the first one claims a fixed document (a unique `_id`); the
 * other gets a duplicate key and is sent to sign in. A claim whose account never appeared (the
 * process died in between) is given up after a minute.
 */
import { ServiceError } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';
import type { AccountService } from '../identity/accounts.js';

interface ClaimRecord {
  _id: string;
  claimedAt: number;
  [key: string]: unknown;
}

const CLAIM_ID = 'owner';
const STALE_CLAIM_MS = 60_000;

export class SetupClaim {
  private readonly claims: Collection<ClaimRecord>;

  constructor(
    store: Store,
    private readonly accounts: AccountService,
  ) {
    this.claims = store.collection<ClaimRecord>('web_setup');
  }

  /** True while no account exists: the setup page is open. */
  async open(): Promise<boolean> {
    return (await this.accounts.count()) === 0;
  }

  /** True when this caller may create the owner account now. */
  async claim(): Promise<boolean> {
    if (!(await this.open())) return false;
    await this.claims.deleteOne({ _id: CLAIM_ID, claimedAt: { $lt: Date.now() - STALE_CLAIM_MS } });
    try {
      await this.claims.insertOne({ _id: CLAIM_ID, claimedAt: Date.now() });
      return true;
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'duplicate_key') return false;
      throw err;
    }
  }

  /** Gives a claim back when the owner account could not be created (the form had an error). */
  async release(): Promise<void> {
    await this.claims.deleteOne({ _id: CLAIM_ID });
  }
}
