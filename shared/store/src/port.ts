/**
 * The document-store port: the subset of MongoDB's collection API our services use. `mongodb.ts`
 * (the official driver) and `embedded.ts` (on-disk, single process) implement it with the same
 * behaviour, proven by one contract suite (test/store.contract.ts).
 *
 * Documents are JSON-like objects with a string `_id` (generated when absent). Filters support
 * equality (also on dotted paths and inside arrays), $eq $ne $gt $gte $lt $lte $in $nin $exists
 * $regex, and $and / $or. A unique index violation throws ServiceError `duplicate_key` (409).
 */
export type Document = { _id?: string } & Record<string, unknown>;
export type Filter = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  /** Inclusion ({a: 1}) or exclusion ({a: 0}) projection; `_id` is always kept unless excluded. */
  projection?: Record<string, 0 | 1>;
}

export interface Update {
  $set?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $push?: Record<string, unknown>;
  $unset?: Record<string, unknown>;
  /** Applied only when an upsert inserts. */
  $setOnInsert?: Record<string, unknown>;
}

export interface UpdateOptions {
  upsert?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: string | null;
}

export interface IndexOptions {
  unique?: boolean;
  sparse?: boolean;
}

export interface Collection<T extends Document = Document> {
  insertOne(doc: T): Promise<T & { _id: string }>;
  /**
   * Inserts documents in order as one write (the embedded adapter appends them in one go). A
   * duplicate key throws duplicate_key; documents before the duplicate may or may not be stored
   * (MongoDB keeps them, the embedded adapter stores none), later ones are not.
   */
  insertMany(docs: T[]): Promise<Array<T & { _id: string }>>;
  findOne(filter: Filter, options?: FindOptions): Promise<(T & { _id: string }) | null>;
  find(filter: Filter, options?: FindOptions): Promise<Array<T & { _id: string }>>;
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /** Updates one document and returns it as it is after the update (null when none matched). */
  findOneAndUpdate(filter: Filter, update: Update, options?: UpdateOptions): Promise<(T & { _id: string }) | null>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  countDocuments(filter?: Filter): Promise<number>;
  createIndex(fields: Record<string, 1 | -1>, options?: IndexOptions): Promise<void>;
  /** Removes the index `createIndex(fields)` made, if there is one (one an older version made). */
  dropIndex(fields: Record<string, 1 | -1>): Promise<void>;
}

/** Entries `first`..`last` of one key's numbered stream, as one opaque text (e.g. a JSON array). */
export interface LogPage {
  key: string;
  first: number;
  last: number;
  body: string;
}

/**
 * Append-only pages of numbered entries per key: a meeting's event stream. Pages are written
 * together, read back in order from a sequence on, and dropped a key at a time. Unlike a
 * collection it is never queried inside a page, which lets the embedded adapter keep the pages on
 * disk and only a few numbers per page in memory (see embedded-log.ts). Its name shares one
 * namespace with collections: on MongoDB a log is a collection of pages.
 */
export interface SequenceLog {
  /**
   * Appends pages in order as one write. A page whose (key, first) is stored already throws
   * duplicate_key; pages before it may or may not be stored (as insertMany), later ones are not.
   */
  append(pages: LogPage[]): Promise<void>;
  /** Up to `limit` pages of `key` that end after `afterSequence`, by `first`. */
  pagesAfter(key: string, afterSequence: number, limit: number): Promise<LogPage[]>;
  /** The `last` of the key's last page, 0 when it has none. */
  lastSequence(key: string): Promise<number>;
  /** Removes every page of these keys. */
  drop(keys: string[]): Promise<void>;
}

/**
 * The newest records of each key, read newest first: a task's execution history. A record is one
 * line of opaque text (JSON, say). Unlike a collection it is never queried inside a record, and
 * unlike a sequence log it is read from its newest end and cut from its oldest, which lets the
 * embedded adapter keep one file per key and only a count per key in memory (embedded-history.ts):
 * memory grows with the number of keys, not with the records they hold. Its name shares one
 * namespace with collections and logs.
 */
export interface HistoryLog {
  /** Appends a record (text without a newline); returns how many records the key holds now. */
  append(key: string, record: string): Promise<number>;
  /** Up to `limit` records of the key, newest first, after skipping the `skip` newest. */
  newest(key: string, limit: number, skip?: number): Promise<string[]>;
  /** Keeps only the key's `keep` newest records. */
  trim(key: string, keep: number): Promise<void>;
  /** Removes every record of these keys. */
  drop(keys: string[]): Promise<void>;
}

export interface Store {
  collection<T extends Document = Document>(name: string): Collection<T>;
  sequenceLog(name: string): SequenceLog;
  historyLog(name: string): HistoryLog;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Service name: one MongoDB database or one embedded folder per service. */
  service: string;
  /** Embedded adapter: root folder; the service's data lives in `<dataDir>/<service>`. */
  dataDir?: string;
  /** MongoDB adapter: used when set. */
  mongodbUrl?: string;
  /** Embedded adapter: told when a LOCK left by a dead holder was taken over. */
  onStaleLock?: (stale: { file: string; pid: number; reason: string }) => void;
}
