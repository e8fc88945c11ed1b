/**
 * One collection of the embedded adapter: every document in memory (a map by `_id`, the hash
 * indexes of doc-indexes.ts), every write appended to `<name>.db` (datafile.ts) before it is
 * acknowledged. A write runs from start to end without yielding, so read-then-write operations
 * (updates that report modifiedCount, upserts) cannot interleave with another write, and one that
 * fails (duplicate_key) changes nothing. Stored documents are never changed in place: an update
 * stores a new object, so a result handed out earlier stays as it was.
 */
import { isDeepStrictEqual } from 'node:util';
import { errors } from '@notetaker/contracts';
import { Appender } from './appender.js';
import { assertUpdate, newId } from './common.js';
import { deletion, indexCreated, indexRemoved, loadDatafile, rewriteDatafile, serialize } from './datafile.js';
import { compileFilter, type Pin } from './doc-filter.js';
import { Indexes, type IndexSpec } from './doc-indexes.js';
import { projected, sortDocs } from './doc-results.js';
import { applyUpdate, forExisting, upsertDocument } from './doc-update.js';
import { assertFieldNames, deepCopy, type Raw } from './doc-values.js';
import type {
  Collection,
  Document,
  Filter,
  FindOptions,
  IndexOptions,
  Update,
  UpdateOptions,
  UpdateResult,
} from './port.js';

type Stored<T> = T & { _id: string };

export class EmbeddedCollection<T extends Document = Document> implements Collection<T> {
  private docs = new Map<string, Raw>();
  private readonly indexes = new Indexes();
  private readonly appender: Appender;
  private readonly ready: Promise<void>;
  /** Written to since the last compaction: idle collections are not rewritten for nothing. */
  private dirty = false;

  constructor(
    readonly file: string,
    prepare: () => Promise<void>,
    private readonly assertOpen: () => void,
  ) {
    this.appender = new Appender(file);
    this.ready = prepare().then(() => this.load());
    this.ready.catch(() => undefined); // reported by the first operation that awaits it
  }

  async insertOne(doc: T): Promise<Stored<T>> {
    await this.writable();
    return this.insert([{ ...doc, _id: doc._id ?? newId() }])[0] as Stored<T>;
  }

  async insertMany(docs: T[]): Promise<Array<Stored<T>>> {
    if (docs.length === 0) return [];
    await this.writable();
    return this.insert(docs.map((doc) => ({ ...doc, _id: doc._id ?? newId() }))) as Array<Stored<T>>;
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<Stored<T> | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Array<Stored<T>>> {
    await this.open();
    const { sort, skip = 0, limit, projection } = options;
    const found = sort
      ? sortDocs(this.matching(filter), sort).slice(skip, limit ? skip + limit : undefined)
      : this.matching(filter, skip + (limit || Infinity)).slice(skip);
    return found.map((doc) => (projection ? projected(doc, projection) : deepCopy(doc)) as Stored<T>);
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    assertUpdate(update);
    await this.writable();
    return this.updateFirst(filter, update, options.upsert ?? false).result;
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertUpdate(update);
    await this.writable();
    const before = this.matching(filter);
    const mods = forExisting(update);
    if (before.length === 0 || !mods) return { matchedCount: before.length, modifiedCount: 0, upsertedId: null };
    const after = before.map((doc) => applyUpdate(doc, mods));
    this.replace(before, after);
    const modifiedCount = after.filter((doc, i) => !isDeepStrictEqual(before[i], doc)).length;
    return { matchedCount: before.length, modifiedCount, upsertedId: null };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<Stored<T> | null> {
    assertUpdate(update);
    await this.writable();
    const { doc } = this.updateFirst(filter, update, options.upsert ?? false);
    return doc && (deepCopy(doc) as Stored<T>);
  }

  async deleteOne(filter: Filter): Promise<number> {
    await this.writable();
    return this.remove(this.matching(filter, 1));
  }

  async deleteMany(filter: Filter): Promise<number> {
    await this.writable();
    return this.remove(this.matching(filter));
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    await this.open();
    return Object.keys(filter).length === 0 ? this.docs.size : this.matching(filter).length;
  }

  async createIndex(fields: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    const names = Object.keys(fields);
    if (names.length === 0) throw errors.badRequest('An index needs at least one field');
    // Indexes here have no direction and answer equalities only, so a non-unique compound index
    // becomes an index of its first field, which serves the queries on its prefix; a unique one
    // stays compound, since it is a constraint.
    const compound = names.length > 1 && options.unique === true;
    const spec: IndexSpec = {
      fieldName: compound ? [...names].sort().join(',') : names[0],
      unique: options.unique ?? false,
      sparse: options.sparse ?? false,
    };
    await this.writable();
    const lines: string[] = [];
    // A datafile of a version before this rule holds such an index compound (by its sorted names): drop it.
    const older = [...names].sort().join(',');
    if (!compound && names.length > 1 && this.indexes.drop(older)) lines.push(indexRemoved(older));
    if (this.indexes.create(spec, this.docs.values())) lines.push(indexCreated(spec));
    this.append(lines);
  }

  async dropIndex(fields: Record<string, 1 | -1>): Promise<void> {
    const names = Object.keys(fields);
    await this.writable();
    // Named as createIndex names it; a compound index of an older version too.
    const dropped = [...new Set([names[0], [...names].sort().join(',')])].filter((name) => this.indexes.drop(name));
    this.append(dropped.map(indexRemoved));
  }

  /** Rewrites the datafile without the superseded lines. */
  async compact(): Promise<void> {
    await this.ready;
    if (!this.dirty) return;
    this.dirty = false;
    this.rewrite();
  }

  /** Compacts, then lets go of the file (the store is closing). */
  async close(): Promise<void> {
    try {
      await this.compact();
    } finally {
      this.appender.close();
    }
  }

  private async load(): Promise<void> {
    const loaded = await loadDatafile(this.file);
    this.docs = loaded.docs;
    for (const spec of loaded.indexes.values()) this.indexes.create(spec, this.docs.values());
    // Superseded lines go on open, so the append log restarts small.
    if (loaded.lines > this.docs.size + loaded.indexes.size) this.rewrite();
  }

  private rewrite(): void {
    rewriteDatafile(this.file, this.docs.values(), this.indexes.specs());
    this.appender.close(); // the next append opens the new file
  }

  private async open(): Promise<void> {
    this.assertOpen();
    await this.ready;
  }

  private async writable(): Promise<void> {
    await this.open();
    this.dirty = true;
  }

  private append(lines: string[]): void {
    if (lines.length > 0) this.appender.append(`${lines.join('\n')}\n`);
  }

  /** The documents `filter` matches, in the order of their candidates, at most `limit` of them. */
  private matching(filter: Filter, limit = Infinity): Raw[] {
    const { matches, pins } = compileFilter(filter);
    const found: Raw[] = [];
    if (limit <= 0) return found;
    for (const doc of this.candidates(pins)) {
      if (matches(doc) && found.push(doc) >= limit) break;
    }
    return found;
  }

  /** The documents a match must be among: those of the given ids, of an index key, or all. */
  private candidates(pins: Pin[]): Iterable<Raw> {
    const ids = pins.find((pin) => pin.field === '_id');
    if (ids) return [...new Set(ids.values)].map((id) => this.docs.get(id as string)).filter((d) => d !== undefined);
    return this.indexes.candidates(pins) ?? this.docs.values();
  }

  /** Stores new documents, all or none (duplicate_key), as one append; their copies. */
  private insert(docs: Array<Record<string, unknown>>): Raw[] {
    const stored = docs.map((doc) => {
      assertFieldNames(doc);
      return deepCopy(doc) as Raw;
    });
    const done: Raw[] = [];
    try {
      for (const doc of stored) {
        if (this.docs.has(doc._id)) throw errors.duplicateKey();
        this.indexes.add(doc);
        this.docs.set(doc._id, doc);
        done.push(doc);
      }
    } catch (err) {
      for (const doc of done) {
        this.indexes.remove(doc);
        this.docs.delete(doc._id);
      }
      throw err;
    }
    this.append(stored.map((doc) => serialize(doc)));
    return stored.map((doc) => deepCopy(doc));
  }

  /** Stores `after[i]` in place of `before[i]`, all or none (duplicate_key), as one append. */
  private replace(before: Raw[], after: Raw[]): void {
    let done = 0;
    try {
      for (; done < before.length; done++) this.indexes.replace(before[done], after[done]);
    } catch (err) {
      for (let i = done - 1; i >= 0; i--) this.indexes.replace(after[i], before[i]);
      throw err;
    }
    for (const doc of after) this.docs.set(doc._id, doc);
    this.append(after.map((doc) => serialize(doc)));
  }

  private remove(docs: Raw[]): number {
    for (const doc of docs) {
      this.indexes.remove(doc);
      this.docs.delete(doc._id);
    }
    this.append(docs.map((doc) => deletion(doc._id)));
    return docs.length;
  }

  private updateFirst(filter: Filter, update: Update, upsert: boolean): { result: UpdateResult; doc: Raw | null } {
    const [before] = this.matching(filter, 1);
    if (!before) {
      if (!upsert) return { result: { matchedCount: 0, modifiedCount: 0, upsertedId: null }, doc: null };
      const [doc] = this.insert([upsertDocument(filter, update)]);
      return { result: { matchedCount: 0, modifiedCount: 0, upsertedId: doc._id }, doc };
    }
    const mods = forExisting(update);
    if (!mods) return { result: { matchedCount: 1, modifiedCount: 0, upsertedId: null }, doc: before };
    const after = applyUpdate(before, mods);
    this.replace([before], [after]);
    const modifiedCount = isDeepStrictEqual(before, after) ? 0 : 1;
    return { result: { matchedCount: 1, modifiedCount, upsertedId: null }, doc: after };
  }
}
