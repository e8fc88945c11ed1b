/**
 * The store of bot accounts: dedicated platform accounts (a Google account for Meet, a Microsoft
 * work or school account for Teams, a Zoom account) the bots join signed in with. An account's
 * storage state is a secret like a signing secret: its whole normalized JSON is sealed with the
 * same SecretBox, and only `storageState()` (meeting-session over the bus) ever opens it.
 * Everything else sees `BotAccountInfo`.
 */
import crypto from 'node:crypto';
import client from 'prom-client';
import { call, type Bus } from '@notetaker/bus';
import {
  BOT_ACCOUNT_STATUSES,
  errors,
  platform as platformSchema,
  PLATFORM_NAMES,
  routes,
  ServiceError,
  storageState,
  type BotAccountInfo,
  type BotAccountStatus,
  type Platform,
  type StorageState,
} from '@notetaker/contracts';
import { silentLogger, type Logger } from '@notetaker/observability';
import type { Collection, Store } from '@notetaker/store';
import type { SealedSecret, SecretBox } from './secrets.js';
import { parseStorageStateFile } from './storage-state-file.js';
import { shownFields } from './shown-fields.js';

export const MAX_MEETINGS_PER_ACCOUNT = 50;

export interface BotAccountRecord {
  _id: string;
  platform: Platform;
  name: string;
  status: BotAccountStatus;
  maxMeetings: number;
  createdAt: string;
  lastUsedAt: string | null;
  identity: string | null;
  /** The sealed storage state (stored under its first name). */
  session: SealedSecret;
  [key: string]: unknown;
}

export interface NewBotAccount {
  platform: string;
  name: string;
  /** The session file's text, as the operator gave it (parsed and normalized here). */
  storageStateText: string;
  maxMeetings?: number;
}

export interface BotAccountReport {
  signedOut?: boolean;
  identity?: string;
  usedAt?: string;
}

// Never read the sealed storage state where it is not needed.
const WITHOUT_STORAGE_STATE = { projection: { session: 0 as const } };

export class BotAccountService {
  private readonly accounts: Collection<BotAccountRecord>;

  constructor(
    store: Store,
    private readonly box: SecretBox,
    private readonly logger: Logger = silentLogger(),
  ) {
    this.accounts = store.collection<BotAccountRecord>('bot_accounts');
  }

  async init(): Promise<void> {
    await this.accounts.createIndex({ platform: 1, name: 1 }, { unique: true });
  }

  /** Checks every field and the session file before anything is stored. */
  async add(input: NewBotAccount): Promise<BotAccountInfo> {
    const platform = platformSchema.safeParse(input.platform);
    if (!platform.success) throw errors.badRequest('platform must be google_meet, teams or zoom', 'platform');
    const name = input.name.trim();
    if (!name || name.length > 100) throw errors.badRequest('name must be 1-100 characters', 'name');
    const maxMeetings = input.maxMeetings ?? 1;
    if (!Number.isInteger(maxMeetings) || maxMeetings < 1 || maxMeetings > MAX_MEETINGS_PER_ACCOUNT) {
      throw errors.badRequest(
        `maxMeetings must be a whole number from 1 to ${MAX_MEETINGS_PER_ACCOUNT}`,
        'maxMeetings',
      );
    }
    const state = parseStorageStateFile(input.storageStateText, platform.data);
    const duplicate = () =>
      errors.conflict(`A ${PLATFORM_NAMES[platform.data]} bot account named "${name}" already exists`);
    if (await this.accounts.findOne({ platform: platform.data, name }, WITHOUT_STORAGE_STATE)) throw duplicate();
    const record: BotAccountRecord = {
      _id: `bot_${crypto.randomBytes(9).toString('base64url')}`,
      platform: platform.data,
      name,
      status: 'active',
      maxMeetings,
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      identity: null,
      session: this.box.seal(JSON.stringify(state)),
    };
    try {
      await this.accounts.insertOne(record);
    } catch (err) {
      // Two adds of one name at once: the unique index decides.
      if (err instanceof ServiceError && err.code === 'duplicate_key') throw duplicate();
      throw err;
    }
    this.logger.info({ botAccountId: record._id, platform: record.platform, name }, 'bot account added');
    return toInfo(record);
  }

  async list(): Promise<BotAccountInfo[]> {
    const records = await this.accounts.find({}, { ...WITHOUT_STORAGE_STATE, sort: { platform: 1, createdAt: 1 } });
    return records.map(toInfo);
  }

  async forPlatform(platform: Platform): Promise<BotAccountInfo[]> {
    const records = await this.accounts.find({ platform }, { ...WITHOUT_STORAGE_STATE, sort: { createdAt: 1 } });
    return records.map(toInfo);
  }

  async remove(id: string): Promise<BotAccountInfo> {
    const record = await this.accounts.findOne({ _id: id }, WITHOUT_STORAGE_STATE);
    if (!record || (await this.accounts.deleteOne({ _id: id })) === 0) throw notFound();
    this.logger.info({ botAccountId: id, platform: record.platform, name: record.name }, 'bot account removed');
    return toInfo(record);
  }

  /** The decrypted storage state, for meeting-session to join with; 404 once the account is removed. */
  async storageState(id: string): Promise<StorageState> {
    const record = await this.accounts.findOne({ _id: id });
    if (!record) throw notFound();
    return storageState.parse(JSON.parse(this.box.open(record.session)));
  }

  /**
   * What a bot saw of the account. The change to signed_out is made only from active, so the
   * warning is logged once however many bots find the storage state refused at the same time.
   */
  async report(id: string, report: BotAccountReport): Promise<void> {
    const record = await this.accounts.findOne({ _id: id }, WITHOUT_STORAGE_STATE);
    if (!record) throw notFound();
    const set: Record<string, unknown> = {};
    if (report.identity !== undefined) set.identity = report.identity.trim().slice(0, 200) || null;
    const usedAt = report.usedAt === undefined ? Number.NaN : Date.parse(report.usedAt);
    if (!Number.isNaN(usedAt)) set.lastUsedAt = new Date(usedAt).toISOString();
    if (Object.keys(set).length > 0) await this.accounts.updateOne({ _id: id }, { $set: set });
    if (report.signedOut === undefined) return;
    const [from, to] = report.signedOut ? (['active', 'signed_out'] as const) : (['signed_out', 'active'] as const);
    const changed = await this.accounts.updateOne({ _id: id, status: from }, { $set: { status: to } });
    if (changed.modifiedCount === 0) return;
    const about = { botAccountId: id, botAccountName: record.name, platform: record.platform };
    if (to === 'signed_out') {
      this.logger.warn(about, 'bot account signed out: the platform no longer accepts its session; import a new one');
    } else {
      this.logger.info(about, 'bot account signed in again');
    }
  }

  /** Accounts by platform and status, every combination present (the metric's series). */
  async counts(): Promise<Array<{ platform: Platform; status: BotAccountStatus; count: number }>> {
    const records = await this.accounts.find({}, { projection: { platform: 1, status: 1 } });
    return platformSchema.options.flatMap((platform) =>
      BOT_ACCOUNT_STATUSES.map((status) => ({
        platform,
        status,
        count: records.filter((r) => r.platform === platform && r.status === status).length,
      })),
    );
  }
}

/** `bot_accounts{platform,status}` in the gateway's registry, counted from the store when scraped. */
export function registerBotAccountMetrics(registry: client.Registry, accounts: BotAccountService): void {
  new client.Gauge({
    name: 'bot_accounts',
    help: 'Bot accounts by platform and status (signed_out: the platform no longer accepts the session)',
    labelNames: ['platform', 'status'],
    registers: [registry],
    async collect() {
      for (const { platform, status, count } of await accounts.counts()) this.set({ platform, status }, count);
    },
  });
}

/**
 * Live meetings per bot account, from meeting-session's registry. Nobody answering (or an answer
 * outside the contract) counts as no meetings: the list must not fail for it.
 */
export async function meetingsInUse(bus: Bus, timeoutMs = 2000): Promise<Record<string, number>> {
  try {
    return (await call(bus, routes.meetings.accountUsage, {}, { timeoutMs })).inUse;
  } catch {
    return {};
  }
}

function notFound(): ServiceError {
  return errors.notFound('Bot account not found');
}

function toInfo(record: BotAccountRecord): BotAccountInfo {
  return shownFields(record, ['platform', 'name', 'status', 'maxMeetings', 'createdAt', 'lastUsedAt', 'identity']);
}
