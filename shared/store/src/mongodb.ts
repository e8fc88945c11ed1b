/**
 * The MongoDB adapter on the official driver: one database per service (`-` becomes `_`), string
 * `_id`s generated here rather than ObjectIds so both adapters hand out the same kind of id.
 */
import { MongoClient, MongoServerError, type Collection as MongoCollection, type Db } from 'mongodb';
import { errors, ServiceError } from '@notetaker/contracts';
import {
  assertCollectionName,
  assertServiceName,
  assertUpdate,
  equalityFields,
  newId,
  isPlainObject,
} from './common.js';
import { CollectionHistoryLog, type HistoryDoc } from './collection-history.js';
import { CollectionSequenceLog, type PageDoc } from './collection-log.js';
import type {
  Collection,
  Document,
  Filter,
  FindOptions,
  HistoryLog,
  IndexOptions,
  SequenceLog,
  Store,
  Update,
  UpdateOptions,
  UpdateResult,
} from './port.js';

type Raw = { _id: string } & Record<string, unknown>;
type Stored<T> = T & { _id: string };

export interface MongoStoreOptions {
  service: string;
  url: string;
}

/** One client (one connection pool) per URL for the whole process, shared by its services. */
const clients = new Map<string, { client: MongoClient; connected: Promise<MongoClient>; users: number }>();

async function acquireClient(url: string): Promise<MongoClient> {
  let entry = clients.get(url);
  if (!entry) {
    // ignoreUndefined: documents behave like JSON (an undefined field is absent), as in the embedded adapter.
    const client = new MongoClient(url, { ignoreUndefined: true });
    const created = { client, connected: client.connect(), users: 0 };
    created.connected.catch(() => {
      if (clients.get(url) === created) clients.delete(url);
      void client.close().catch(() => undefined); // stops its monitoring timers
    });
    clients.set(url, created);
    entry = created;
  }
  entry.users += 1;
  try {
    return await entry.connected;
  } catch (err) {
    entry.users -= 1;
    throw errors.unavailable(`Cannot connect to MongoDB: ${(err as Error).message}`);
  }
}

async function releaseClient(url: string): Promise<void> {
  const entry = clients.get(url);
  if (!entry) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  clients.delete(url);
  await entry.client.close();
}

export async function openMongoStore(options: MongoStoreOptions): Promise<Store> {
  assertServiceName(options.service);
  const client = await acquireClient(options.url);
  return new MongoStore(options.url, client.db(options.service.replace(/-/g, '_')));
}

class MongoStore implements Store {
  private readonly collections = new Map<string, MongoAdapterCollection>();
  private readonly logs = new Map<string, SequenceLog>();
  private readonly histories = new Map<string, HistoryLog>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    readonly db: Db,
  ) {}

  collection<T extends Document = Document>(name: string): Collection<T> {
    this.assertOpen();
    assertCollectionName(name);
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new MongoAdapterCollection(this.db.collection<Raw>(name), () => this.assertOpen());
      this.collections.set(name, collection);
    }
    return collection as unknown as Collection<T>;
  }

  sequenceLog(name: string): SequenceLog {
    let log = this.logs.get(name);
    if (!log) this.logs.set(name, (log = new CollectionSequenceLog(this.collection<PageDoc>(name))));
    return log;
  }

  historyLog(name: string): HistoryLog {
    let history = this.histories.get(name);
    if (!history) {
      this.histories.set(name, (history = new CollectionHistoryLog(this.collection<HistoryDoc>(name))));
    }
    return history;
  }

  close(): Promise<void> {
    this.closing ??= releaseClient(this.url);
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing)
      throw new ServiceError('store_closed', `The store of database ${this.db.databaseName} is closed`, 503);
  }
}

function mapError(err: unknown): unknown {
  if (err instanceof MongoServerError && err.code === 11000) return errors.duplicateKey();
  return err;
}

/**
 * With ignoreUndefined the driver would drop `{field: undefined}` from a filter, turning
 * `deleteMany({owner: undefined})` into "delete everything"; match null/missing instead, as the
 * embedded adapter does.
 */
function nullForUndefined(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(nullForUndefined);
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullForUndefined(v)]));
  }
  return value;
}

function toFilter(filter: Filter): Record<string, unknown> {
  return nullForUndefined(filter) as Record<string, unknown>;
}

/** An upsert must insert a string `_id` (the server would make an ObjectId) unless the filter fixes it. */
function withStringId(filter: Filter, update: Update, upsert: boolean): Update {
  if (!upsert || '_id' in equalityFields(filter)) return update;
  return { ...update, $setOnInsert: { _id: newId(), ...update.$setOnInsert } };
}

class MongoAdapterCollection<T extends Document = Document> implements Collection<T> {
  constructor(
    private readonly coll: MongoCollection<Raw>,
    private readonly assertOpen: () => void,
  ) {}

  async insertOne(doc: T): Promise<Stored<T>> {
    this.assertOpen();
    const stored = { ...doc, _id: doc._id ?? newId() } as Stored<T>;
    await this.coll.insertOne(stored as Raw).catch((err: unknown) => Promise.reject(mapError(err)));
    return stored;
  }

  async insertMany(docs: T[]): Promise<Array<Stored<T>>> {
    this.assertOpen();
    if (docs.length === 0) return [];
    const stored = docs.map((doc) => ({ ...doc, _id: doc._id ?? newId() }) as Stored<T>);
    await this.coll
      .insertMany(stored as Raw[], { ordered: true })
      .catch((err: unknown) => Promise.reject(mapError(err)));
    return stored;
  }

  async findOne(filter: Filter, options: FindOptions = {}): Promise<Stored<T> | null> {
    this.assertOpen();
    return (await this.coll.findOne(toFilter(filter), options)) as Stored<T> | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Array<Stored<T>>> {
    this.assertOpen();
    return (await this.coll.find(toFilter(filter), options).toArray()) as Array<Stored<T>>;
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    this.assertOpen();
    assertUpdate(update);
    const upsert = options.upsert ?? false;
    const result = await this.coll
      .updateOne(toFilter(filter), withStringId(filter, update, upsert) as never, { upsert })
      .catch((err: unknown) => Promise.reject(mapError(err)));
    return {
      matchedCount: result.matchedCount,
      modifiedCount: result.modifiedCount,
      upsertedId: result.upsertedId == null ? null : String(result.upsertedId),
    };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    this.assertOpen();
    assertUpdate(update);
    const result = await this.coll
      .updateMany(toFilter(filter), update as never)
      .catch((err: unknown) => Promise.reject(mapError(err)));
    return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: null };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<Stored<T> | null> {
    this.assertOpen();
    assertUpdate(update);
    const upsert = options.upsert ?? false;
    const doc = await this.coll
      .findOneAndUpdate(toFilter(filter), withStringId(filter, update, upsert) as never, {
        returnDocument: 'after',
        upsert,
      })
      .catch((err: unknown) => Promise.reject(mapError(err)));
    return doc as Stored<T> | null;
  }

  async deleteOne(filter: Filter): Promise<number> {
    this.assertOpen();
    return (await this.coll.deleteOne(toFilter(filter))).deletedCount;
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.assertOpen();
    return (await this.coll.deleteMany(toFilter(filter))).deletedCount;
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    this.assertOpen();
    return this.coll.countDocuments(toFilter(filter));
  }

  async createIndex(fields: Record<string, 1 | -1>, options: IndexOptions = {}): Promise<void> {
    this.assertOpen();
    await this.coll
      // Only explicit `true`s: an existing index created without options then still matches.
      .createIndex(fields, { ...(options.unique && { unique: true }), ...(options.sparse && { sparse: true }) })
      .catch((err: unknown) => Promise.reject(mapError(err)));
  }

  async dropIndex(fields: Record<string, 1 | -1>): Promise<void> {
    this.assertOpen();
    // Indexes are named by MongoDB's default, as createIndex made them: `a_1_b_-1`.
    const name = Object.entries(fields)
      .map(([field, direction]) => `${field}_${direction}`)
      .join('_');
    await this.coll.dropIndex(name).catch((err: unknown) => {
      // Neither the index nor (NamespaceNotFound) its collection: nothing to drop.
      const code = (err as { codeName?: string }).codeName;
      if (code !== 'IndexNotFound' && code !== 'NamespaceNotFound') throw mapError(err);
    });
  }
}
