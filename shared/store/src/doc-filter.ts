/**
 * Port filters (port.ts) compiled for the embedded adapter, with MongoDB's semantics: equality
 * also by array membership and on dotted paths through arrays of sub-documents, `null` matching a
 * missing field, `$ne`/`$nin` on arrays holding only when no element equals, `$exists` counting
 * null and empty arrays as present, each range operator satisfied by any element on its own.
 * A compiled filter also names the values its top-level conditions pin a field to, so the
 * collection can draw its candidates from an index instead of matching every document.
 */
import { isDeepStrictEqual } from 'node:util';
import { errors } from '@notetaker/contracts';
import { isOperatorObject, isPlainObject } from './common.js';
import type { Raw } from './doc-values.js';
import type { Filter } from './port.js';

type Check = (doc: Raw) => boolean;
type Values = (doc: Raw) => unknown[];

/** A field a match must hold one of `values` in (equalities and `$in` of plain values). */
export interface Pin {
  field: string;
  values: unknown[];
}

export interface CompiledFilter {
  matches: Check;
  /** Every match satisfies each of these (they are candidates for an index lookup). */
  pins: Pin[];
}

const RANGE: Record<string, (order: number) => boolean> = {
  $gt: (order) => order > 0,
  $gte: (order) => order >= 0,
  $lt: (order) => order < 0,
  $lte: (order) => order <= 0,
};

export function compileFilter(filter: Filter): CompiledFilter {
  const checks: Check[] = [];
  const pins: Pin[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(cond)) throw errors.badRequest(`${key} needs an array`);
      const parts = (cond as Filter[]).map(compileFilter);
      if (key === '$and') {
        checks.push(...parts.map((p) => p.matches));
        pins.push(...parts.flatMap((p) => p.pins));
      } else {
        checks.push((doc) => parts.some((p) => p.matches(doc)));
      }
    } else if (key.startsWith('$')) {
      throw errors.badRequest(`Unsupported query operator ${key}`);
    } else if (isOperatorObject(cond)) {
      checks.push(...operatorChecks(key, cond, pins));
    } else {
      if (isPinnable(cond)) pins.push({ field: key, values: [cond] });
      const values = valuesAt(key);
      const wanted = cond instanceof RegExp ? toRegExp(cond) : cond;
      checks.push((doc) => matchesEq(values(doc), wanted));
    }
  }
  const matches: Check = checks.length === 1 ? checks[0] : (doc) => checks.every((check) => check(doc));
  return { matches, pins };
}

function operatorChecks(key: string, ops: Record<string, unknown>, pins: Pin[]): Check[] {
  const values = valuesAt(key);
  const checks: Check[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (op in RANGE) {
      const holds = RANGE[op];
      checks.push((doc) => values(doc).some((v) => someElement(v, (el) => inRange(el, value, holds))));
    } else if (op === '$regex') {
      const re = toRegExp(value, ops.$options);
      checks.push((doc) => matchesEq(values(doc), re));
    } else if (op === '$options') {
      if (!('$regex' in ops)) throw errors.badRequest('$options needs $regex');
    } else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(value)) throw errors.badRequest(`${op} needs an array`);
      const wanted = value.map((v) => (v instanceof RegExp ? toRegExp(v) : v));
      if (op === '$in' && wanted.every(isPinnable)) pins.push({ field: key, values: wanted });
      const any = (doc: Raw) => wanted.some((w) => matchesEq(values(doc), w));
      checks.push(op === '$in' ? any : (doc) => !any(doc));
    } else if (op === '$eq') {
      if (isPinnable(value)) pins.push({ field: key, values: [value] });
      checks.push((doc) => matchesEq(values(doc), value));
    } else if (op === '$ne') {
      checks.push((doc) => !matchesEq(values(doc), value));
    } else if (op === '$exists') {
      const wanted = Boolean(value);
      checks.push((doc) => values(doc).some((v) => v !== undefined) === wanted);
    } else {
      throw errors.badRequest(`Unsupported query operator ${op}`);
    }
  }
  return checks;
}

/** A value an index lookup finds exactly the equal values of (null also matches "missing"). */
function isPinnable(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number' || value instanceof Date;
}

/** Range operators compare numbers with numbers, strings with strings, dates with dates. */
function inRange(value: unknown, bound: unknown, holds: (order: number) => boolean): boolean {
  if (typeof value === 'number' && typeof bound === 'number') return holds(order(value, bound));
  if (typeof value === 'string' && typeof bound === 'string') return holds(order(value, bound));
  if (value instanceof Date && bound instanceof Date) return holds(order(value.getTime(), bound.getTime()));
  return false;
}

const order = <V extends number | string>(a: V, b: V) => (a < b ? -1 : a > b ? 1 : 0);

function someElement(value: unknown, test: (v: unknown) => boolean): boolean {
  return test(value) || (Array.isArray(value) && value.some(test));
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
function valuesAt(path: string): Values {
  if (!path.includes('.')) return (doc) => [doc[path]];
  const parts = path.split('.');
  return (doc) => walk(doc, parts, 0);
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
    return values.some((v) => someElement(v, (el) => typeof el === 'string' && wanted.test(el)));
  }
  return values.some((v) => same(v, wanted) || (Array.isArray(v) && v.some((el) => same(el, wanted))));
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object') return a === b; // numbers: 0 equals -0
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
