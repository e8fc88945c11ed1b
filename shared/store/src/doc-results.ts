/** What a find returns of the documents it matched: sorted, and projected (port.ts FindOptions). */
import { errors } from '@notetaker/contracts';
import { compareValues, deepCopy, valueAt, type Raw } from './doc-values.js';
import type { SortSpec } from './port.js';

/** `docs` sorted in place by each key in turn (stable: ties keep their order). */
export function sortDocs(docs: Raw[], sort: SortSpec): Raw[] {
  const criteria = Object.entries(sort);
  return docs.sort((a, b) => {
    for (const [field, direction] of criteria) {
      const order = compareValues(valueAt(a, field), valueAt(b, field));
      if (order !== 0) return direction * order;
    }
    return 0;
  });
}

/**
 * A copy of `doc` with only the fields an inclusion projection names (`{a: 1, 'b.c': 1}`), or
 * without those an exclusion names (`{a: 0}`); `_id` is kept unless `{_id: 0}`.
 */
export function projected(doc: Raw, projection: Record<string, 0 | 1>): Record<string, unknown> {
  const { _id: id, ...fields } = projection;
  const paths = Object.keys(fields);
  const include = paths.length > 0 ? fields[paths[0]] === 1 : id === 1;
  if (paths.some((p) => (fields[p] === 1) !== include)) {
    throw errors.badRequest('A projection either keeps or omits fields (except _id), not both');
  }
  let out: Record<string, unknown>;
  if (include) {
    out = {};
    for (const p of paths) {
      const value = valueAt(doc, p);
      if (value !== undefined) setPath(out, p.split('.'), deepCopy(value));
    }
  } else {
    out = deepCopy(doc);
    for (const p of paths) unsetPath(out, p.split('.'));
  }
  const { _id, ...rest } = out;
  return id === 0 ? rest : { _id: doc._id, ...rest };
}

function setPath(target: Record<string, unknown>, parts: string[], value: unknown): void {
  let container = target;
  for (const part of parts.slice(0, -1)) {
    const next = container[part];
    container = (container[part] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
  }
  container[parts[parts.length - 1]] = value;
}

function unsetPath(target: Record<string, unknown>, parts: string[]): void {
  let container: unknown = target;
  for (const part of parts.slice(0, -1)) {
    container = (container as Record<string, unknown> | undefined)?.[part];
    if (typeof container !== 'object' || container === null) return;
  }
  delete (container as Record<string, unknown>)[parts[parts.length - 1]];
}
