/**
 * The document store: one port (port.ts), two adapters. Services call `openStore` and get MongoDB
 * when MONGODB_URL is configured, otherwise the embedded files under DATA_DIR.
 */
import { errors } from '@notetaker/contracts';
import { openEmbeddedStore } from './embedded.js';
import type { MongoStoreOptions } from './mongodb.js';
import type { Store, StoreOptions } from './port.js';

export type * from './port.js';
export { openEmbeddedStore, type EmbeddedStoreOptions } from './embedded.js';
export type { MongoStoreOptions } from './mongodb.js';
export { newId } from './common.js';
export type { StaleLock } from './lock.js';
export { GroupCommit } from './group-commit.js';

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.mongodbUrl) return openMongoStore({ service: options.service, url: options.mongodbUrl });
  if (!options.dataDir) throw errors.badRequest('The store needs either mongodbUrl or dataDir');
  return openEmbeddedStore({ service: options.service, dataDir: options.dataDir, onStaleLock: options.onStaleLock });
}

/**
 * The MongoDB adapter, loaded on first use: a process on the embedded store never loads the
 * driver, which costs 21 MB of PSS (measured: its code, and bson's 17 MB serializer buffer).
 */
export async function openMongoStore(options: MongoStoreOptions): Promise<Store> {
  return (await import('./mongodb.js')).openMongoStore(options);
}
