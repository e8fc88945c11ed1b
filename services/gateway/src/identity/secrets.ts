/**
 * Key material for API tokens. An API key is only ever stored as its SHA-256 (a key has 256 random
 * bits, so a fast hash is enough and lets us look it up by digest). A signing secret must be
 * readable again to sign callbacks, so it is encrypted at rest with AES-256-GCM under a
 * key-encryption key that never enters the database: SECRETS_KEY, or a generated 0600 file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const API_KEY_PREFIX = 'sk_';
export const SIGNING_SECRET_PREFIX = 'ss_';

export function generateApiKey(): string {
  return API_KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
}

export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + crypto.randomBytes(32).toString('base64url');
}

/** Hex SHA-256: the lookup key of a token. */
export function hashApiKey(apiKey: string): string {
  return crypto.createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of the same algorithm. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && crypto.timingSafeEqual(left, right);
}

/** A plausible key: prefix and base64url body of the right size; anything else is 401 without a lookup. */
export function isWellFormedApiKey(value: string): boolean {
  return /^sk_[A-Za-z0-9_-]{43}$/.test(value);
}

export interface SealedSecret {
  iv: string;
  tag: string;
  data: string;
}

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** From SECRETS_KEY (any string, stretched by SHA-256) or a key file created once under dataDir. */
  static load(options: { secretsKey?: string; dataDir: string }): SecretBox {
    if (options.secretsKey) {
      return new SecretBox(crypto.createHash('sha256').update(options.secretsKey, 'utf8').digest());
    }
    const file = path.join(options.dataDir, 'secrets.key');
    fs.mkdirSync(options.dataDir, { recursive: true });
    try {
      const created = crypto.randomBytes(32);
      fs.writeFileSync(file, created.toString('base64'), { flag: 'wx', mode: 0o600 });
      return new SecretBox(created);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return new SecretBox(key);
  }

  seal(plain: string): SealedSecret {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  open(sealed: SealedSecret): string {
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  }
}
