/**
 * API tokens: created with an API key and a signing secret shown once, looked up by the key's
 * digest on every request (so a revocation counts from the next request; streams already open
 * end through `onRevoked`, see grants.ts), capabilities fixed at creation.
 */
import crypto from 'node:crypto';
import type { Capability } from '@notetaker/contracts';
import { errors } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';
import {
  digestsEqual,
  generateApiKey,
  generateSigningSecret,
  hashApiKey,
  isWellFormedApiKey,
  type SealedSecret,
  type SecretBox,
} from './secrets.js';
import { shownFields } from './shown-fields.js';

export interface TokenRecord {
  _id: string;
  name: string;
  accountId: string | null;
  keyHash: string;
  signingSecret: SealedSecret;
  capabilities: Capability[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  [key: string]: unknown;
}

/** What may be shown about a token after creation: never the key or the secret. */
export interface TokenInfo {
  id: string;
  name: string;
  accountId: string | null;
  capabilities: Capability[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedToken extends TokenInfo {
  apiKey: string;
  signingSecret: string;
}

export interface AuthenticatedToken {
  tokenId: string;
  capabilities: Capability[];
}

/** Writing lastUsedAt on every request would double the cost of auth; once a minute is plenty. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class TokenService {
  private readonly tokens: Collection<TokenRecord>;
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly revokedListeners = new Set<(tokenId: string) => void>();

  constructor(
    store: Store,
    private readonly box: SecretBox,
  ) {
    this.tokens = store.collection<TokenRecord>('tokens');
  }

  async init(): Promise<void> {
    await this.tokens.createIndex({ keyHash: 1 }, { unique: true });
    await this.tokens.createIndex({ accountId: 1 });
  }

  async create(input: { name: string; capabilities: Capability[]; accountId?: string | null }): Promise<CreatedToken> {
    const name = input.name.trim();
    if (!name || name.length > 100) throw errors.badRequest('name must be 1-100 characters', 'name');
    const apiKey = generateApiKey();
    const signingSecret = generateSigningSecret();
    const record: TokenRecord = {
      _id: `tok_${crypto.randomBytes(9).toString('base64url')}`,
      name,
      accountId: input.accountId ?? null,
      keyHash: hashApiKey(apiKey),
      signingSecret: this.box.seal(signingSecret),
      capabilities: [...new Set(input.capabilities)].sort(),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.tokens.insertOne(record);
    return { ...toInfo(record), apiKey, signingSecret };
  }

  /** The token behind a presented key, or 401 `Invalid API key` for unknown, malformed or revoked. */
  async authenticate(apiKey: string): Promise<AuthenticatedToken> {
    if (!isWellFormedApiKey(apiKey)) throw errors.invalidApiKey();
    const keyHash = hashApiKey(apiKey);
    const record = await this.tokens.findOne({ keyHash });
    // The lookup is by digest; comparing again in constant time keeps a store that matched loosely
    // (or a future cache) from ever accepting a different key.
    if (!record || !digestsEqual(record.keyHash, keyHash) || record.revokedAt) throw errors.invalidApiKey();
    this.touch(record._id);
    return { tokenId: record._id, capabilities: record.capabilities };
  }

  async list(accountId?: string): Promise<TokenInfo[]> {
    const filter = accountId === undefined ? {} : { accountId };
    const records = await this.tokens.find(filter, { sort: { createdAt: 1 } });
    return records.map(toInfo);
  }

  async revoke(tokenId: string, accountId?: string): Promise<TokenInfo> {
    const filter = accountId === undefined ? { _id: tokenId } : { _id: tokenId, accountId };
    const current = await this.tokens.findOne(filter);
    if (!current) throw errors.notFound('Token not found');
    const updated = current.revokedAt
      ? current
      : await this.tokens.findOneAndUpdate(filter, { $set: { revokedAt: new Date().toISOString() } });
    // Told again for a token already revoked: harmless, and it ends a stream a lost broadcast left open.
    for (const listener of this.revokedListeners) listener(tokenId);
    return toInfo(updated ?? current);
  }

  /**
   * Called after every revoke: requests check the key each time, but open streams (MCP
   * subscriptions and sessions) were let in once, so the gateway ends them from here.
   */
  onRevoked(listener: (tokenId: string) => void): void {
    this.revokedListeners.add(listener);
  }

  /** Whether the token exists and is not revoked (the periodic check of open streams). */
  async isActive(tokenId: string): Promise<boolean> {
    const record = await this.tokens.findOne({ _id: tokenId });
    return !!record && !record.revokedAt;
  }

  /** The plain signing secret of a token, for the webhook emitter; null for an unknown token. */
  async signingSecret(tokenId: string): Promise<string | null> {
    const record = await this.tokens.findOne({ _id: tokenId });
    return record ? this.box.open(record.signingSecret) : null;
  }

  private touch(tokenId: string): void {
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(tokenId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWritten.set(tokenId, now);
    // Best effort: a failed write of a usage timestamp must not fail the request.
    this.tokens.updateOne({ _id: tokenId }, { $set: { lastUsedAt: new Date(now).toISOString() } }).catch(() => {});
  }
}

function toInfo(record: TokenRecord): TokenInfo {
  return shownFields(record, ['name', 'accountId', 'capabilities', 'createdAt', 'lastUsedAt', 'revokedAt']);
}
