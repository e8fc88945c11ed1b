/**
 * Update operators on the embedded adapter's documents: `$set`, `$unset`, `$inc`, `$push` (a value,
 * or `{$each, $slice}`) on dotted paths that create the objects they go through, and the document
 * an upsert inserts. A new document comes out; the stored one is never changed in place, so the
 * indexes can still find it by its old values.
 */
import { errors } from '@notetaker/contracts';
import { equalityFields, isPlainObject, newId } from './common.js';
import { assertFieldNames, deepCopy, type Raw } from './doc-values.js';
import type { Filter, Update } from './port.js';

type Container = Record<string, unknown> | unknown[];
type Operator = (container: Container, field: string, value: unknown) => void;

const OPERATORS: Record<string, { apply: Operator; createsPath: boolean }> = {
  $set: { apply: set, createsPath: true },
  $unset: { apply: (container, field) => delete (container as Record<string, unknown>)[field], createsPath: false },
  $inc: { apply: inc, createsPath: true },
  $push: { apply: push, createsPath: true },
};

/** `doc` with `update` applied (every operator but `$setOnInsert`, which is for inserts only). */
export function applyUpdate(doc: Raw, update: Record<string, unknown>): Raw {
  const next = deepCopy(doc);
  for (const [name, fields] of Object.entries(update)) {
    const operator = OPERATORS[name];
    if (!operator) throw errors.badRequest(`Unsupported update operator ${name}`);
    if (!isPlainObject(fields)) throw errors.badRequest(`${name} needs an object`);
    for (const [path, value] of Object.entries(fields)) {
      const parts = path.split('.');
      if (parts.some((part) => part === '' || part.startsWith('$')))
        throw errors.badRequest(`Invalid field path ${path}`);
      assertFieldNames(value);
      const container = containerOf(next, parts, operator.createsPath);
      if (container) operator.apply(container, parts[parts.length - 1], value);
    }
  }
  if (next._id !== doc._id) throw errors.badRequest("A document's _id cannot change");
  return next;
}

/** The update without `$setOnInsert` (only for inserts), or null when nothing remains. */
export function forExisting(update: Update): Record<string, unknown> | null {
  const { $setOnInsert: _ignored, ...rest } = update;
  return Object.keys(rest).length > 0 ? rest : null;
}

/** The document an upsert inserts: the filter's equalities, then the update with $setOnInsert. */
export function upsertDocument(filter: Filter, update: Update): Raw {
  const { _id, ...seed } = equalityFields(filter);
  let doc: Raw = { _id: typeof _id === 'string' ? _id : newId() };
  if (Object.keys(seed).length > 0) doc = applyUpdate(doc, { $set: seed });
  const { $setOnInsert, $set, ...rest } = update;
  const mods: Record<string, unknown> = { ...rest };
  if ($setOnInsert || $set) mods.$set = { ...$setOnInsert, ...$set };
  return Object.keys(mods).length > 0 ? applyUpdate(doc, mods) : doc;
}

/** The object holding a path's last part, made on the way when `create`; null when absent. */
function containerOf(doc: Raw, parts: string[], create: boolean): Container | null {
  let container: Container = doc;
  for (const part of parts.slice(0, -1)) {
    let next: unknown = (container as Record<string, unknown>)[part];
    if (next === undefined) {
      if (!create) return null;
      next = (container as Record<string, unknown>)[part] = {};
    }
    if (!isPlainObject(next) && !Array.isArray(next)) {
      throw errors.badRequest(`Cannot update a field inside ${part}: it is not an object`);
    }
    container = next;
  }
  return container;
}

function set(container: Container, field: string, value: unknown): void {
  const copy = deepCopy(value);
  // An undefined value sets nothing, as with MongoDB's ignoreUndefined.
  if (copy !== undefined) (container as Record<string, unknown>)[field] = copy;
}

function inc(container: Container, field: string, by: unknown): void {
  if (typeof by !== 'number') throw errors.badRequest(`$inc needs a number for ${field}`);
  const fields = container as Record<string, unknown>;
  const current = fields[field];
  if (typeof current === 'number') fields[field] = current + by;
  else if (!Object.hasOwn(fields, field)) fields[field] = by;
  else throw errors.badRequest(`$inc on ${field}, which is not a number`);
}

function push(container: Container, field: string, value: unknown): void {
  const fields = container as Record<string, unknown>;
  if (!Object.hasOwn(fields, field)) fields[field] = [];
  const list = fields[field];
  if (!Array.isArray(list)) throw errors.badRequest(`$push on ${field}, which is not an array`);
  if (!isPlainObject(value) || !('$each' in value || '$slice' in value)) {
    list.push(deepCopy(value) ?? null);
    return;
  }
  const { $each = [], $slice, ...other } = value;
  if (Object.keys(other).length > 0 || !Array.isArray($each))
    throw errors.badRequest('$push takes $each (an array) and $slice only');
  list.push(...(deepCopy($each) as unknown[]));
  if (typeof $slice !== 'number') return;
  fields[field] = $slice < 0 ? list.slice(Math.max(0, list.length + $slice)) : list.slice(0, $slice);
}
