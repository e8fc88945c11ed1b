/**
 * Values inside the embedded adapter's documents (JSON values and Dates): copies, the order sorts
 * and indexes use, field paths, and the keys an index files a value under.
 */
import { errors } from '@notetaker/contracts';
import { isPlainObject } from './common.js';

export type Raw = Record<string, unknown> & { _id: string };

/**
 * A copy sharing nothing with `value`: what is stored is never what a caller holds. Fields whose
 * value is `undefined` (or a function) are left out, as JSON and MongoDB's `ignoreUndefined` leave
 * them; such array elements become null, as in JSON.
 */
export function deepCopy<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (value instanceof Date) return new Date(value.getTime());
  if (Array.isArray(value)) return value.map((el) => copy(el) ?? null);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = copy((value as Record<string, unknown>)[key]);
    if (field !== undefined) out[key] = field;
  }
  return out;
}

/** Refuses field names a stored document cannot have: `$` first (operators) or a `.` (paths). */
export function assertFieldNames(value: unknown): void {
  if (value === null || typeof value !== 'object' || value instanceof Date) return;
  if (Array.isArray(value)) {
    for (const el of value) assertFieldNames(el);
    return;
  }
  for (const [key, field] of Object.entries(value)) {
    if (key.startsWith('$')) throw errors.badRequest(`Field names cannot begin with $: ${key}`);
    if (key.includes('.')) throw errors.badRequest(`Field names cannot contain a dot: ${key}`);
    assertFieldNames(field);
  }
}

/**
 * The order of sorts: missing < null < numbers < strings < booleans < dates < arrays (element by
 * element, then by length) < objects (values by sorted key, then by size). Strings compare by
 * UTF-16 code units. This is the order the adapter has always sorted in (nedb's).
 */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case RANK.number:
    case RANK.string:
    case RANK.boolean:
      return compareNative(a as number, b as number);
    case RANK.date:
      return compareNative((a as Date).getTime(), (b as Date).getTime());
    case RANK.array:
      return compareArrays(a as unknown[], b as unknown[]);
    case RANK.object:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

const RANK = { missing: 0, null: 1, number: 2, string: 3, boolean: 4, date: 5, array: 6, object: 7 } as const;

function rank(value: unknown): number {
  if (value === undefined) return RANK.missing;
  if (value === null) return RANK.null;
  if (typeof value === 'number') return RANK.number;
  if (typeof value === 'string') return RANK.string;
  if (typeof value === 'boolean') return RANK.boolean;
  if (value instanceof Date) return RANK.date;
  if (Array.isArray(value)) return RANK.array;
  return RANK.object;
}

function compareNative(a: number | string | boolean, b: number | string | boolean): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareArrays(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return compareNative(a.length, b.length);
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const aKeys = Object.keys(a).sort();
  const bKeys = Object.keys(b).sort();
  for (let i = 0; i < Math.min(aKeys.length, bKeys.length); i++) {
    const order = compareValues(a[aKeys[i]], b[bKeys[i]]);
    if (order !== 0) return order;
  }
  return compareNative(aKeys.length, bKeys.length);
}

/**
 * The value at a dotted path as sorts and indexes read it: through an array of sub-documents it
 * is the array of their values; a numeric part picks that element.
 */
export function valueAt(doc: unknown, path: string): unknown {
  return valueAtParts(doc, path.split('.'), 0);
}

function valueAtParts(value: unknown, parts: string[], i: number): unknown {
  if (i === parts.length) return value;
  if (!isPlainObject(value)) return undefined;
  const next = value[parts[i]];
  if (i + 1 < parts.length && Array.isArray(next)) {
    if (/^\d+$/.test(parts[i + 1])) return valueAtParts(next[Number(parts[i + 1])], parts, i + 2);
    return next.map((el) => valueAtParts(el, parts, i + 1));
  }
  return valueAtParts(next, parts, i + 1);
}

/**
 * The text an index files `value` under: equal values (by `compareValues`, so 0 and -0 too) get
 * the same key, values of different types never do.
 */
export function indexKey(value: unknown): string {
  if (value === undefined) return 'u';
  if (value === null) return 'n';
  switch (typeof value) {
    case 'number':
      return `d${value === 0 ? 0 : value}`;
    case 'string':
      return `s${value}`;
    case 'boolean':
      return value ? 'b1' : 'b0';
  }
  if (value instanceof Date) return `t${value.getTime()}`;
  return `o${canonical(value)}`;
}

/** JSON with object keys sorted, Dates tagged: the same text for equal arrays and objects. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Date) return `{"$date":${value.getTime()}}`;
  if (isPlainObject(value)) {
    const fields = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
