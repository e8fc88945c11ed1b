/**
 * Accounts own API tokens and sign in to the web application. Passwords are kept as scrypt hashes
 * with a per-account salt and compared in constant time.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { errors } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number) => Promise<Buffer>;

/**
 * The rules of an account's email and password, written once: the store enforces them and the
 * sign-up and accounts pages check them first, with the same words.
 */
export const PASSWORD_LENGTH = { min: 10, max: 200 } as const;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

/** What is wrong with a new account's email (trimmed) and password: a message per field, none when both are right. */
export function accountProblems(email: string, password: string): { email?: string; password?: string } {
  const problems: { email?: string; password?: string } = {};
  if (!email) problems.email = 'Enter an email address.';
  else if (!EMAIL.test(email)) problems.email = 'Enter an email address such as name@example.com.';
  if (password.length < PASSWORD_LENGTH.min)
    problems.password = `The password needs at least ${PASSWORD_LENGTH.min} characters.`;
  else if (password.length > PASSWORD_LENGTH.max)
    problems.password = `The password can have at most ${PASSWORD_LENGTH.max} characters.`;
  return problems;
}

export interface AccountRecord {
  _id: string;
  email: string;
  passwordHash: string;
  salt: string;
  createdAt: string;
  [key: string]: unknown;
}

export interface AccountInfo {
  id: string;
  email: string;
  createdAt: string;
}

export class AccountService {
  private readonly accounts: Collection<AccountRecord>;

  constructor(store: Store) {
    this.accounts = store.collection<AccountRecord>('accounts');
  }

  async init(): Promise<void> {
    await this.accounts.createIndex({ email: 1 }, { unique: true });
  }

  async create(emailInput: string, password: string): Promise<AccountInfo> {
    const email = emailInput.trim().toLowerCase();
    const [problem] = Object.entries(accountProblems(email, password));
    if (problem) throw errors.badRequest(problem[1], problem[0]);
    if (await this.accounts.findOne({ email })) throw errors.conflict(`An account for ${email} already exists`);
    const salt = crypto.randomBytes(16);
    const record: AccountRecord = {
      _id: `acc_${crypto.randomBytes(9).toString('base64url')}`,
      email,
      passwordHash: (await scrypt(password, salt, 32)).toString('hex'),
      salt: salt.toString('hex'),
      createdAt: new Date().toISOString(),
    };
    await this.accounts.insertOne(record);
    return toInfo(record);
  }

  async findByEmail(emailInput: string): Promise<AccountInfo | null> {
    const record = await this.accounts.findOne({ email: emailInput.trim().toLowerCase() });
    return record ? toInfo(record) : null;
  }

  /** The account when the password matches; null otherwise, with the same work done either way. */
  async verify(emailInput: string, password: string): Promise<AccountInfo | null> {
    const record = await this.accounts.findOne({ email: emailInput.trim().toLowerCase() });
    const salt = Buffer.from(record?.salt ?? '00'.repeat(16), 'hex');
    const candidate = await scrypt(password, salt, 32);
    const expected = Buffer.from(record?.passwordHash ?? '00'.repeat(32), 'hex');
    return record && crypto.timingSafeEqual(candidate, expected) ? toInfo(record) : null;
  }

  async get(id: string): Promise<AccountInfo | null> {
    const record = await this.accounts.findOne({ _id: id });
    return record ? toInfo(record) : null;
  }

  /** Every account, oldest first (the web application's account settings). */
  async list(): Promise<AccountInfo[]> {
    const records = await this.accounts.find({}, { sort: { createdAt: 1 } });
    return records.map(toInfo);
  }

  /** The owner: the first account, made at setup (or by the CLI before anyone opened setup). */
  async ownerId(): Promise<string | null> {
    const [first] = await this.accounts.find({}, { sort: { createdAt: 1, _id: 1 }, limit: 1, projection: { _id: 1 } });
    return first?._id ?? null;
  }

  async count(): Promise<number> {
    return this.accounts.countDocuments({});
  }
}

function toInfo(record: AccountRecord): AccountInfo {
  return { id: record._id, email: record.email, createdAt: record.createdAt };
}
