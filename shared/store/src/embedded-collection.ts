/**
 * One collection of the embedded adapter: an nedb Datastore (whole collection in memory, appended
 * to `<name>.db`). Every write goes through a per-collection queue so read-then-write operations
 * (updates that report modifiedCount, upserts) cannot interleave with another write.
 */
import { isDeepStrictEqual } from 'node:util';
import { errors } from '@notetaker/contracts';
import { assertUpdate, equalityFields, newId } from './common.js';
import { idsOf, toNedbQuery } from './nedb-query.js';
import { Appender } from './appender.js';
import { Datastore, indexesOf, model, takeOverPersistence, type NedbIndexes } from './nedb-internals.js';
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
type Raw = Record<string, unknown> & { _id: string };

function mapError(err: unknown): unknown {
  if ((err as { errorType?: string } | null)?.errorType === 'uniqueViolated') return errors.duplicateKey();
  return err;
}

/** The update without `$setOnInsert` (only for inserts), or null when nothing remains. */
function forExisting(update: Update): Record<string, unknown> | null {
  const { $setOnInsert: _ignored, ...rest } = update;
  return Object.keys(rest).length > 0 ? rest : null;
}

/** The document an upsert inserts: the filter's equalities, then the update with $setOnInsert. */
function upsertDocument(filter: Filter, update: Update): Record<string, unknown> {
  const { _id, ...seed } = equalityFields(filter);
  let doc: Record<string, unknown> = { _id: typeof _id === 'string' ? _id : newId() };
  if (Object.keys(seed).length > 0) doc = model.modify(doc, { $set: seed });
  const { $setOnInsert, $set, ...rest } = update;
  const mods: Record<string, unknown> = { ...rest };
  if ($setOnInsert || $set) mods.$set = { ...$setOnInsert, ...$set };
  return Object.keys(mods).length > 0 ? model.modify(doc, mods) : doc;
}

export class EmbeddedCollection<T extends Document = Document> implements Collection<T> {
  private readonly db: Datastore;
  private readonly appender: Appender;
  private readonly ready: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  /** Written to since the last compaction: idle collections are not rewritten for nothing. */
  private dirty = false;

  constructor(
    readonly file: string,
    prepare: () => Promise<void>,
    private readonly assertOpen: () => void,
  ) {
    this.db = new Datastore({ filename: file });
    const appender = new Appender(file);
    this.appender = appender;
    takeOverPersistence(this.db, async (docs) =>
      appender.append(docs.map((doc) => `${model.serialize(doc)}\n`).join('')),
    );
    // Compaction renames a fresh file over the old one: append to the new one from now on.
    this.db.on('compaction.done', () => appender.close());
    // nedb rewrites the file compactly while loading: the append log restarts small on each open.
    this.ready = prepare().then(() => this.db.loadDatabaseAsync());
    this.ready.catch(() => undefined); // reported by the first operation that awaits it
  }

  async insertOne(doc: T): Promise<Stored<T>> {
    return this.write(() => this.insertRaw({ ...doc, _id: doc._id ?? newId() }));
  }

  async insertMany(docs: T[]): Promise<Array<Stored<T>>> {
    if (docs.length === 0) return [];
    return this.write(() => this.insertRaw(docs.map((doc) => ({ ...doc, _id: doc._id ?? newId() }))));
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<Stored<T> | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Array<Stored<T>>> {
    await this.open();
    const ids = options.projection || options.skip ? null : idsOf(filter);
    if (ids) return this.byIds(ids, options);
    const cursor = this.db.findAsync(toNedbQuery(filter));
    if (options.sort) cursor.sort(options.sort);
    if (options.skip) cursor.skip(options.skip);
    if (options.limit) cursor.limit(options.limit);
    const projection = options.projection;
    if (projection) cursor.projection(projection);
    const docs = (await cursor) as unknown as Raw[];
    // nedb reads `{_id: 1}` alone as "no projection": keep only the _id like MongoDB does.
    if (projection && projection._id === 1 && Object.keys(projection).length === 1) {
      return docs.map((d) => ({ _id: d._id }) as Stored<T>);
    }
    return docs as Array<Stored<T>>;
  }

  /**
   * Documents by id straight from nedb's `_id` index. nedb's own query would match every candidate
   * against the whole `$in` list (a record request's 50 meetings: 2,500 comparisons) behind its
   * operation queue; the answer is the same, as of every write acknowledged so far.
   */
  private byIds(ids: string[], { sort, limit }: FindOptions): Array<Stored<T>> {
    const docs = this.indexes._id.getMatching(ids);
    if (sort) {
      const criteria = Object.entries(sort);
      docs.sort((a, b) => {
        for (const [field, direction] of criteria) {
          const order = model.compareThings(model.getDotValue(a, field), model.getDotValue(b, field));
          if (order !== 0) return direction * order;
        }
        return 0;
      });
    }
    return (limit ? docs.slice(0, limit) : docs).map((doc) => model.deepCopy(doc) as Stored<T>);
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    assertUpdate(update);
    return this.write(async () => (await this.updateFirst(filter, update, options.upsert ?? false)).result);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertUpdate(update);
    return this.write(async () => {
      const before = (await this.db.findAsync(toNedbQuery(filter))) as unknown as Raw[];
      const mods = forExisting(update);
      if (before.length === 0 || !mods) return { matchedCount: before.length, modifiedCount: 0, upsertedId: null };
      const ids = before.map((d) => d._id);
      const { affectedDocuments } = await this.db
        .updateAsync({ _id: { $in: ids } }, mods, { multi: true, returnUpdatedDocs: true })
        .catch((err: unknown) => Promise.reject(mapError(err)));
      const byId = new Map(before.map((d) => [d._id, d]));
      const after = (affectedDocuments ?? []) as Raw[];
      const modifiedCount = after.filter((d) => !isDeepStrictEqual(byId.get(d._id), d)).length;
      return { matchedCount: before.length, modifiedCount, upsertedId: null };
    });
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<Stored<T> | null> {
    assertUpdate(update);
    return this.write(async () => (await this.updateFirst(filter, update, options.upsert ?? false)).doc);
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.write(() => this.db.removeAsync(toNedbQuery(filter), { multi: false }));
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.write(() => this.db.removeAsync(toNedbQuery(filter), { multi: true }));
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    await this.open();
    return (await this.db.countAsync(toNedbQuery(filter))) as unknown as number;
  }

  async createIndex(fields: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    const names = Object.keys(fields);
    if (names.length === 0) throw errors.badRequest('An index needs at least one field');
    // nedb indexes have no direction: equality lookups and sorts work either way. nedb uses a
    // compound index only for an equality on every one of its fields, never for a prefix or a
    // range, yet keeps it up to date at several times the cost of a plain one (measured: 3x per
    // insert). So a non-unique compound index becomes an index of its first field, which is what
    // serves the queries on its prefix; a unique one stays compound, since it is a constraint.
    const compound = names.length > 1 && options.unique === true;
    const fieldName = compound ? names : names[0];
    await this.write(async () => {
      // A data file written before this rule reloads such an index as compound (nedb keys it by
      // its sorted field names): drop it.
      const dropped = [...names].sort().join(',');
      if (!compound && names.length > 1 && dropped in this.indexes) await this.db.removeIndexAsync(dropped);
      await this.db
        .ensureIndexAsync({ fieldName, unique: options.unique ?? false, sparse: options.sparse ?? false })
        .catch((err: unknown) => Promise.reject(mapError(err)));
    });
  }

  async dropIndex(fields: Record<string, 1 | -1>): Promise<void> {
    const names = Object.keys(fields);
    await this.write(async () => {
      // Keyed as createIndex keys it; a compound index of an older version too.
      for (const key of new Set([names[0], [...names].sort().join(',')])) {
        if (key !== '_id' && key in this.indexes) await this.db.removeIndexAsync(key);
      }
    });
  }

  /** Rewrites the datafile without the superseded lines (nedb queues it after pending writes). */
  async compact(): Promise<void> {
    await this.ready;
    await this.queue;
    if (!this.dirty) return;
    this.dirty = false;
    await this.db.compactDatafileAsync();
  }

  /** Compacts, then lets go of the file (the store is closing). */
  async close(): Promise<void> {
    try {
      await this.compact();
    } finally {
      this.appender.close();
    }
  }

  /** Read for lookups by id and for dropping an index an older version made. */
  private get indexes(): NedbIndexes {
    return indexesOf(this.db);
  }

  private async open(): Promise<void> {
    this.assertOpen();
    await this.ready;
  }

  private async write<R>(task: () => Promise<R>): Promise<R> {
    await this.open();
    this.dirty = true;
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One document, or several inserted all-or-nothing and appended to the file as one write. */
  private async insertRaw(doc: Record<string, unknown>): Promise<Stored<T>>;
  private async insertRaw(docs: Array<Record<string, unknown>>): Promise<Array<Stored<T>>>;
  private async insertRaw(docs: Record<string, unknown> | Array<Record<string, unknown>>): Promise<unknown> {
    try {
      // nedb deep-copies both the stored documents and the ones it returns.
      return await this.db.insertAsync(docs as Record<string, unknown>);
    } catch (err) {
      throw mapError(err);
    }
  }

  private async updateFirst(
    filter: Filter,
    update: Update,
    upsert: boolean,
  ): Promise<{ result: UpdateResult; doc: Stored<T> | null }> {
    const before = (await this.db.findOneAsync(toNedbQuery(filter))) as unknown as Raw | null;
    if (!before) {
      if (!upsert) return { result: { matchedCount: 0, modifiedCount: 0, upsertedId: null }, doc: null };
      const doc = await this.insertRaw(upsertDocument(filter, update));
      return { result: { matchedCount: 0, modifiedCount: 0, upsertedId: doc._id }, doc };
    }
    const mods = forExisting(update);
    if (!mods) return { result: { matchedCount: 1, modifiedCount: 0, upsertedId: null }, doc: before as Stored<T> };
    const { affectedDocuments } = await this.db
      .updateAsync({ _id: before._id }, mods, { returnUpdatedDocs: true })
      .catch((err: unknown) => Promise.reject(mapError(err)));
    const after = affectedDocuments as unknown as Stored<T>;
    const modifiedCount = isDeepStrictEqual(before, after) ? 0 : 1;
    return { result: { matchedCount: 1, modifiedCount, upsertedId: null }, doc: after };
  }
}
