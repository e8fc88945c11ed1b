/**
 * Rules both adapters share, so a service sees the same ids, names and update validation whichever
 * backend it runs on.
 */
import { randomBytes } from 'node:crypto';
import { errors } from '@notetaker/contracts';
import type { Filter, Update } from './port.js';

/** 16 random bytes, base64url: URL-safe, 22 characters, unguessable. */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}

const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,63}$/;
// Service names become a folder (embedded) or a database name (MongoDB, max 63 bytes).
const SERVICE_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

export function assertCollectionName(name: string): void {
  if (!COLLECTION_NAME.test(name)) {
    throw errors.badRequest(`Invalid collection name ${JSON.stringify(name)}: expected ${COLLECTION_NAME.source}`);
  }
}

export function assertServiceName(name: string): void {
  if (!SERVICE_NAME.test(name)) {
    throw errors.badRequest(`Invalid service name ${JSON.stringify(name)}: expected ${SERVICE_NAME.source}`);
  }
}

const MODIFIERS = new Set(['$set', '$inc', '$push', '$unset', '$setOnInsert']);

/**
 * An update without operators would be a whole-document replacement in some engines (silently
 * wiping fields) and is an error in MongoDB; reject it up front in both adapters.
 */
export function assertUpdate(update: Update): void {
  const keys = Object.keys(update);
  if (keys.length === 0) throw errors.badRequest('Update needs at least one operator');
  for (const key of keys) {
    if (!MODIFIERS.has(key)) throw errors.badRequest(`Unsupported update operator ${key}`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

/**
 * The equality conditions of a filter, as MongoDB seeds an upserted document with them:
 * `{a: 1, 'b.c': 2, d: {$eq: 3}, e: {$gt: 1}, $and: [{f: 4}]}` gives `{a: 1, 'b.c': 2, d: 3, f: 4}`
 * (dotted keys are left for the caller's `$set`, which creates the nested objects).
 */
export function equalityFields(filter: Filter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value as Filter[]) Object.assign(out, equalityFields(part));
    } else if (key.startsWith('$')) {
      continue;
    } else if (isOperatorObject(value)) {
      if ('$eq' in value) out[key] = value.$eq;
    } else if (!(value instanceof RegExp)) {
      out[key] = value;
    }
  }
  return out;
}
