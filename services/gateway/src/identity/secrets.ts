/**
 * Key material for API tokens. An API key is only ever stored as its SHA-256 (a key has 256 random
 * bits, so a fast hash is enough and lets us look it up by digest). A signing secret must be
 * readable again to sign callbacks, so it is sealed at rest (@notetaker/secrets' SecretBox).
 */
import crypto from 'node:crypto';

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

export { SecretBox, type SealedSecret } from '@notetaker/secrets';
