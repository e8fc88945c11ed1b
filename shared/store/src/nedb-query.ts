/**
 * Port filters -> nedb queries with MongoDB's semantics. nedb matches most conditions like MongoDB
 * but differs where it matters: on array fields `$ne`/`$nin` match when *any* element differs
 * (MongoDB: when *no* element equals), `null` does not match a missing field, `$exists: true`
 * misses empty arrays, several range operators must hold for the *same* element, and `$eq` /
 * `$options` do not exist. Those conditions are evaluated here, in one `$where` function per
 * (sub)filter; the rest stays native so nedb can still pick candidates from its indexes (it only
 * looks at top-level primitive equalities, `$in` and range operators).
 */
import { isDeepStrictEqual } from 'node:util';
import { errors } from '@notetaker/contracts';
import { isOperatorObject, isPlainObject } from './common.js';
import type { Filter } from './port.js';

type Query = Record<string, unknown>;
type Check = (doc: Record<string, unknown>) => boolean;

const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

/**
 * The nedb query for a filter. nedb matches only the candidates it draws from one top-level
 * condition on an indexed field: the last equality, else the last `$in` (datastore.js,
 * `_getRawCandidates`). For `{_id, status}` that is every document of that status, each matched
 * in turn: a scheduler finishing 10,000 runs by `{_id, status: 'running'}` matched 50 million
 * documents. A condition on `_id` names the fewest documents, so when there is one, every other
 * top-level field condition moves into `$and`, where nedb still checks it but draws nothing from it.
 */
export function toNedbQuery(filter: Filter): Query {
  const query = translate(filter);
  if (!drawsFromIndex(query._id)) return query;
  const narrowed: Query = {};
  const and: Query[] = [];
  for (const [key, cond] of Object.entries(query)) {
    if (key === '$and') and.push(...(cond as Query[]));
    else if (key === '_id' || key.startsWith('$')) narrowed[key] = cond;
    else and.push({ [key]: cond });
  }
  if (and.length > 0) narrowed.$and = and;
  return narrowed;
}

/** An equality or a `$in` that nedb can look up in an index. */
function drawsFromIndex(cond: unknown): boolean {
  if (cond === undefined || cond instanceof RegExp) return false;
  if (isNativeValue(cond)) return true;
  return isPlainObject(cond) && Object.keys(cond).length === 1 && Array.isArray(cond.$in);
}

function translate(filter: Filter): Query {
  const out: Query = {};
  const and: Query[] = [];
  const checks: Check[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(cond)) throw errors.badRequest(`${key} needs an array`);
      const parts = (cond as Filter[]).map(translate);
      if (key === '$or') out.$or = parts;
      else and.push(...parts);
    } else if (key.startsWith('$')) {
      throw errors.badRequest(`Unsupported query operator ${key}`);
    } else if (isOperatorObject(cond)) {
      translateOperators(key, cond, out, and, checks);
    } else if (isNativeValue(cond)) {
      out[key] = cond;
    } else {
      checks.push((doc) => matchesEq(resolve(doc, key), cond));
    }
  }
  if (checks.length > 0) {
    out.$where = function (this: Record<string, unknown>) {
      return checks.every((check) => check(this));
    };
  }
  if (and.length > 0) out.$and = and;
  return out;
}

function translateOperators(key: string, ops: Record<string, unknown>, out: Query, and: Query[], checks: Check[]) {
  const native: Query = {};
  // Each native condition after the first goes into its own $and clause so that, on an array
  // field, different elements may satisfy different bounds (as in MongoDB).
  const addNative = (op: string, value: unknown) => {
    if (Object.keys(native).length === 0) native[op] = value;
    else and.push({ [key]: { [op]: value } });
  };
  for (const [op, value] of Object.entries(ops)) {
    if (RANGE.has(op)) {
      addNative(op, value);
    } else if (op === '$regex') {
      addNative('$regex', toRegExp(value, ops.$options));
    } else if (op === '$options') {
      if (!('$regex' in ops)) throw errors.badRequest('$options needs $regex');
    } else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(value)) throw errors.badRequest(`${op} needs an array`);
      const values = value.map((v) => (v instanceof RegExp ? toRegExp(v) : v));
      // nedb's $in compares with plain equality: no regexes, no null-matches-missing.
      const native = values.length > 0 && values.every((v) => isNativeValue(v) && !(v instanceof RegExp));
      if (op === '$in' && native) addNative('$in', values);
      else if (op === '$in') checks.push((doc) => matchesAny(resolve(doc, key), values));
      else checks.push((doc) => !matchesAny(resolve(doc, key), values));
    } else if (op === '$eq') {
      checks.push((doc) => matchesEq(resolve(doc, key), value));
    } else if (op === '$ne') {
      checks.push((doc) => !matchesEq(resolve(doc, key), value));
    } else if (op === '$exists') {
      const wanted = Boolean(value);
      checks.push((doc) => resolve(doc, key).some((v) => v !== undefined) === wanted);
    } else {
      throw errors.badRequest(`Unsupported query operator ${op}`);
    }
  }
  if (Object.keys(native).length > 0) out[key] = native;
}

/** Values nedb compares exactly as MongoDB does (element-wise on arrays). */
function isNativeValue(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && !Object.is(value, -0)) ||
    value instanceof Date ||
    value instanceof RegExp
  );
}

function toRegExp(pattern: unknown, options?: unknown): RegExp {
  const flags = typeof options === 'string' ? options : undefined;
  if (pattern instanceof RegExp) {
    // A global or sticky RegExp keeps state between test() calls: drop those flags.
    return new RegExp(pattern.source, (flags ?? pattern.flags).replace(/[gy]/g, ''));
  }
  if (typeof pattern !== 'string') throw errors.badRequest('$regex needs a string or a RegExp');
  return new RegExp(pattern, flags ?? '');
}

/**
 * The values a dotted path reaches, MongoDB style: through arrays of sub-documents, and by
 * position for numeric parts. An empty result or `undefined` entries mean "missing".
 */
export function resolve(value: unknown, path: string): unknown[] {
  return walk(value, path.split('.'), 0);
}

function walk(value: unknown, parts: string[], i: number): unknown[] {
  if (i === parts.length) return [value];
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    if (/^\d+$/.test(parts[i])) out.push(...walk(value[Number(parts[i])], parts, i + 1));
    for (const el of value) if (isPlainObject(el)) out.push(...walk(el, parts, i));
    return out;
  }
  if (isPlainObject(value)) return walk(value[parts[i]], parts, i + 1);
  return [undefined];
}

/** MongoDB equality: a value, or an element of an array value; `null` also matches "missing". */
function matchesEq(values: unknown[], wanted: unknown): boolean {
  if (wanted === null || wanted === undefined) {
    return values.length === 0 || values.some((v) => v == null || (Array.isArray(v) && v.includes(null)));
  }
  if (wanted instanceof RegExp) {
    const test = (v: unknown) => typeof v === 'string' && wanted.test(v);
    return values.some((v) => test(v) || (Array.isArray(v) && v.some(test)));
  }
  return values.some((v) => same(v, wanted) || (Array.isArray(v) && v.some((el) => same(el, wanted))));
}

function matchesAny(values: unknown[], wanted: unknown[]): boolean {
  return wanted.some((w) => matchesEq(values, w));
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b; // 0 equals -0
  return isDeepStrictEqual(a, b);
}

/** The ids a filter asks for when it is nothing but `{_id: id}` or `{_id: {$in: [ids]}}` (strings). */
export function idsOf(filter: Filter): string[] | null {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return null;
  const cond = filter._id;
  if (typeof cond === 'string') return [cond];
  if (!isPlainObject(cond) || Object.keys(cond).length !== 1 || !Array.isArray(cond.$in)) return null;
  return cond.$in.every((id) => typeof id === 'string') ? (cond.$in as string[]) : null;
}
