/**
 * The embedded adapter's secondary indexes: a hash of each index key to the documents holding it,
 * so a lookup by equality or `$in` and the removal of one document are O(1) whatever the number of
 * documents sharing a key (an owner's meetings, a status). An array field files a document under
 * each distinct element; a compound index (unique ones only, see embedded-collection.ts) under its
 * values together. A document without the field is filed under "missing" unless the index is
 * sparse, so a unique index that is not sparse takes one such document, as MongoDB's does.
 */
import { errors } from '@notetaker/contracts';
import type { Pin } from './doc-filter.js';
import { indexKey, valueAt, type Raw } from './doc-values.js';

/** As the datafile records it (`$$indexCreated`): compound field names sorted, joined by commas. */
export interface IndexSpec {
  fieldName: string;
  unique: boolean;
  sparse: boolean;
}

class HashIndex {
  private readonly fields: string[];
  private readonly buckets = new Map<string, Set<Raw>>();

  constructor(readonly spec: IndexSpec) {
    this.fields = spec.fieldName.split(',');
  }

  /** Files `doc` under its keys; a unique key another document holds throws duplicate_key, filing nothing. */
  add(doc: Raw): void {
    const keys = this.keysOf(doc);
    if (this.spec.unique) {
      for (const key of keys) if ((this.buckets.get(key)?.size ?? 0) > 0) throw errors.duplicateKey();
    }
    for (const key of keys) {
      let bucket = this.buckets.get(key);
      if (!bucket) this.buckets.set(key, (bucket = new Set()));
      bucket.add(doc);
    }
  }

  remove(doc: Raw): void {
    for (const key of this.keysOf(doc)) {
      const bucket = this.buckets.get(key);
      if (bucket?.delete(doc) && bucket.size === 0) this.buckets.delete(key);
    }
  }

  /** The documents holding one of `values` (only for a single-field index). */
  find(values: unknown[]): Iterable<Raw> {
    if (values.length === 1) return this.buckets.get(indexKey(values[0])) ?? [];
    const found = new Set<Raw>();
    for (const value of values) for (const doc of this.buckets.get(indexKey(value)) ?? []) found.add(doc);
    return found;
  }

  /** How many documents `find(values)` goes through, at most. */
  count(values: unknown[]): number {
    let n = 0;
    for (const value of values) n += this.buckets.get(indexKey(value))?.size ?? 0;
    return n;
  }

  get single(): string | null {
    return this.fields.length === 1 ? this.fields[0] : null;
  }

  private keysOf(doc: Raw): string[] {
    if (this.fields.length > 1) {
      const values = this.fields.map((field) => valueAt(doc, field));
      if (this.spec.sparse && values.every((v) => v === undefined)) return [];
      return [JSON.stringify(values.map(indexKey))];
    }
    const value = valueAt(doc, this.fields[0]);
    if (value === undefined && this.spec.sparse) return [];
    if (!Array.isArray(value)) return [indexKey(value)];
    return [...new Set(value.map(indexKey))];
  }
}

/** Every secondary index of one collection, kept in step with its documents. */
export class Indexes {
  private readonly byName = new Map<string, HashIndex>();

  /** Files a document in every index, or in none (duplicate_key). */
  add(doc: Raw): void {
    const done: HashIndex[] = [];
    try {
      for (const index of this.byName.values()) {
        index.add(doc);
        done.push(index);
      }
    } catch (err) {
      for (const index of done) index.remove(doc);
      throw err;
    }
  }

  remove(doc: Raw): void {
    for (const index of this.byName.values()) index.remove(doc);
  }

  /** Files `next` in place of `old`, or leaves `old` filed (duplicate_key). */
  replace(old: Raw, next: Raw): void {
    this.remove(old);
    try {
      this.add(next);
    } catch (err) {
      this.add(old);
      throw err;
    }
  }

  /** Builds an index over `docs`; false when one of that name is there already. Throws duplicate_key, building none. */
  create(spec: IndexSpec, docs: Iterable<Raw>): boolean {
    if (this.byName.has(spec.fieldName)) return false;
    const index = new HashIndex(spec);
    for (const doc of docs) index.add(doc);
    this.byName.set(spec.fieldName, index);
    return true;
  }

  drop(fieldName: string): boolean {
    return this.byName.delete(fieldName);
  }

  has(fieldName: string): boolean {
    return this.byName.has(fieldName);
  }

  specs(): IndexSpec[] {
    return [...this.byName.values()].map((index) => index.spec);
  }

  /** The fewest candidates an index gives for these pins, or null when no index serves one. */
  candidates(pins: Pin[]): Iterable<Raw> | null {
    let best: { index: HashIndex; values: unknown[]; count: number } | null = null;
    for (const pin of pins) {
      const index = this.byName.get(pin.field);
      if (!index?.single) continue;
      const count = index.count(pin.values);
      if (!best || count < best.count) best = { index, values: pin.values, count };
    }
    return best ? best.index.find(best.values) : null;
  }
}
