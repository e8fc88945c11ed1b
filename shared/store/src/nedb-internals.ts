/**
 * The parts of nedb the embedded adapter uses that are not its public API, in one place:
 * - `lib/model.js` (modify, serialize, deepCopy, compareThings, getDotValue), so upserts are built
 *   and documents copied exactly as nedb does it;
 * - `persistence.persistNewStateAsync`, the one step of every write we take over (appender.ts:
 *   one synchronous append instead of nedb's thread-pool round trips);
 * - `indexes._id.getMatching`, for finds by ids without matching every document;
 * - the index tree's value removal (binary-search-tree's `AVLTree.delete`), done in place: see
 *   `removeValuesInPlace`.
 * Why not only the public API: durability and write cost (see appender.ts). The price: nedb is
 * pinned to one exact version in package.json, and this module checks the shapes when it loads,
 * so an upgrade that changes them fails at once and loudly (and its test names what changed)
 * instead of silently losing writes.
 */
import { createRequire } from 'node:module';
import nedb from '@seald-io/nedb';

export const NEDB_VERSION = '4.1.2';
/** The version of nedb's index tree whose removal is replaced; npm ci installs it from the lock. */
export const TREE_VERSION = '1.0.3';

type Raw = Record<string, unknown> & { _id: string };

export interface NedbModel {
  modify(doc: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown>;
  serialize(doc: Record<string, unknown>): string;
  deepCopy<D>(doc: D): D;
  compareThings(a: unknown, b: unknown): number;
  getDotValue(doc: unknown, field: string): unknown;
}

/** nedb's indexes by their (sorted, comma-joined) field names; `_id` is always there. */
export type NedbIndexes = Record<string, unknown> & { _id: { getMatching(ids: string[]): Raw[] } };

// nedb is CommonJS whose typings say `export default`: at runtime the default import already is
// the class, while TypeScript sees a namespace holding it under `default`.
export const Datastore = nedb as unknown as typeof nedb.default;
export type Datastore = InstanceType<typeof Datastore>;

const require = createRequire(import.meta.url);
export const model = require('@seald-io/nedb/lib/model.js') as NedbModel;
const treeRequire = createRequire(require.resolve('@seald-io/nedb/package.json'));

interface IndexTree {
  tree: { search(key: unknown): unknown[] };
  delete(key: unknown, value?: unknown): void;
}
/** The AVL tree class behind every nedb index. */
const AVLTree = treeRequire('@seald-io/binary-search-tree').AVLTree as { prototype: IndexTree };

/** What of nedb's internals is missing or changed: empty when this version is the one we know. */
export function nedbInternalsProblems(): string[] {
  const problems: string[] = [];
  const installed = (require('@seald-io/nedb/package.json') as { version: string }).version;
  if (installed !== NEDB_VERSION)
    problems.push(`nedb ${installed} installed, internals checked against ${NEDB_VERSION}`);
  for (const name of ['modify', 'serialize', 'deepCopy', 'compareThings', 'getDotValue'] as const) {
    if (typeof model[name] !== 'function') problems.push(`lib/model.js has no ${name}()`);
  }
  const probe = new Datastore({ inMemoryOnly: true }) as unknown as {
    persistence?: { persistNewStateAsync?: unknown };
    indexes?: { _id?: { getMatching?: unknown } };
  };
  if (typeof probe.persistence?.persistNewStateAsync !== 'function')
    problems.push('persistence.persistNewStateAsync is gone');
  if (typeof probe.indexes?._id?.getMatching !== 'function') problems.push('indexes._id.getMatching is gone');
  const tree = (treeRequire('@seald-io/binary-search-tree/package.json') as { version: string }).version;
  if (tree !== TREE_VERSION)
    problems.push(`binary-search-tree ${tree} installed, removal checked against ${TREE_VERSION}`);
  if (typeof AVLTree?.prototype?.delete !== 'function') problems.push('binary-search-tree has no AVLTree.delete');
  return problems;
}

const problems = nedbInternalsProblems();
if (problems.length > 0) {
  throw new Error(
    `The embedded store relies on nedb internals that changed: ${problems.join('; ')} (see nedb-internals.ts)`,
  );
}

/**
 * nedb keeps the documents of one index key in an array, and removes one of them (each update and
 * delete does, for every index) by copying all the others into a new array: on a key shared by
 * many documents, an owner's meetings or a status, that is O(n) garbage per write. A scheduler
 * index on `status` made ~800 MB of it in one minute of 10,000 runs. Here the one value goes out
 * of the key's own array in place. That is safe because nedb copies a key's array synchronously
 * wherever it reads one (`_getCandidatesAsync`), and the value is a document, compared by
 * identity, as nedb's own `checkValueEquality` does.
 */
function removeValuesInPlace(): void {
  const removeWhole = AVLTree.prototype.delete;
  AVLTree.prototype.delete = function (this: IndexTree, key: unknown, value?: unknown) {
    if (value !== undefined) {
      const values = this.tree.search(key);
      if (values.length > 1) {
        const at = values.indexOf(value);
        if (at >= 0) values.splice(at, 1);
        return;
      }
    }
    removeWhole.call(this, key, value);
  };
}
removeValuesInPlace();

/** Routes every write of `db` through `persist` instead of nedb's own file writes. */
export function takeOverPersistence(
  db: Datastore,
  persist: (docs: Array<Record<string, unknown>>) => Promise<void>,
): void {
  (db.persistence as unknown as { persistNewStateAsync: typeof persist }).persistNewStateAsync = persist;
}

export function indexesOf(db: Datastore): NedbIndexes {
  return (db as unknown as { indexes: NedbIndexes }).indexes;
}
