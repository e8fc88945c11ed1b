/**
 * The embedded adapter: no server to run, one folder per service (`<dataDir>/<service>/`), one
 * datafile per collection (`<name>.db`, see embedded-collection.ts), one file per sequence log
 * (`<name>.log`, see embedded-log.ts), one folder per history log (`<name>.history/`, see
 * embedded-history.ts), one process at a time (see lock.ts).
 *
 * Durability: a write is acknowledged once its line is appended to the file (no fsync), so
 * it survives the process being killed at any point; an OS crash or power loss can still lose the
 * last seconds, as with Redis' `appendfsync no`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ServiceError } from '@notetaker/contracts';
import { assertCollectionName, assertServiceName } from './common.js';
import { EmbeddedCollection } from './embedded-collection.js';
import { EmbeddedHistoryLog } from './embedded-history.js';
import { EmbeddedSequenceLog } from './embedded-log.js';
import { acquireLock, releaseLock, type StaleLock } from './lock.js';
import type { Collection, Document, HistoryLog, SequenceLog, Store } from './port.js';

export interface EmbeddedStoreOptions {
  service: string;
  dataDir: string;
  /** How often datafiles are rewritten without superseded lines (default 10 minutes). */
  compactionIntervalMs?: number;
  /** A LOCK left by a holder that died was taken over (log it: the operator may wonder). */
  onStaleLock?: (stale: StaleLock) => void;
}

const TEN_MINUTES = 10 * 60 * 1000;

export async function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<Store> {
  assertServiceName(options.service);
  const folder = path.resolve(options.dataDir, options.service);
  await fs.mkdir(folder, { recursive: true });
  const lock = await acquireLock(folder, options.onStaleLock);
  return new EmbeddedStore(folder, lock, options.compactionIntervalMs ?? TEN_MINUTES);
}

class EmbeddedStore implements Store {
  private readonly collections = new Map<string, EmbeddedCollection>();
  private readonly logs = new Map<string, EmbeddedSequenceLog>();
  private readonly histories = new Map<string, EmbeddedHistoryLog>();
  private readonly timer: NodeJS.Timeout;
  private closing: Promise<void> | null = null;

  constructor(
    readonly folder: string,
    private readonly lock: string,
    compactionIntervalMs: number,
  ) {
    // Updates and deletes append lines; without this a long-running service's files only grow.
    this.timer = setInterval(() => void this.compactAll(), compactionIntervalMs);
    this.timer.unref();
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return this.opened(this.collections, name, () => {
      const file = this.file(`${name}.db`);
      return new EmbeddedCollection(file, () => dropTornTail(file), this.checkOpen);
    }) as unknown as Collection<T>;
  }

  sequenceLog(name: string): SequenceLog {
    return this.opened(this.logs, name, () => new EmbeddedSequenceLog(this.file(`${name}.log`), this.checkOpen));
  }

  historyLog(name: string): HistoryLog {
    return this.opened(
      this.histories,
      name,
      () => new EmbeddedHistoryLog(this.file(`${name}.history`), this.checkOpen),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      for (const history of this.histories.values()) history.close();
      for (const log of this.logs.values()) await warnOnFailure(`closing ${log.file}`, () => log.close());
      // Compacting drains each collection's pending writes and leaves a tidy file for next time.
      await Promise.allSettled([...this.collections.values()].map((c) => c.close()));
      await releaseLock(this.lock);
    })();
    return this.closing;
  }

  /** The one instance of a collection or log by its name, opened on first use. */
  private opened<T>(open: Map<string, T>, name: string, create: () => T): T {
    this.assertOpen();
    assertCollectionName(name);
    let found = open.get(name);
    if (!found) open.set(name, (found = create()));
    return found;
  }

  private file(name: string): string {
    return path.join(this.folder, name);
  }

  private readonly checkOpen = () => this.assertOpen();

  private assertOpen(): void {
    if (this.closing) throw new ServiceError('store_closed', `The store in ${this.folder} is closed`, 503);
  }

  private async compactAll(): Promise<void> {
    for (const log of this.logs.values()) await warnOnFailure(`compacting ${log.file}`, () => log.compact());
    for (const c of this.collections.values()) await warnOnFailure(`compacting ${c.file}`, () => c.compact());
  }
}

/** No logger at this layer: housekeeping failures become process warnings (a broken disk fails the next write loudly anyway). */
async function warnOnFailure(what: string, step: () => void | Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    process.emitWarning(`${what} failed: ${(err as Error).message}`);
  }
}

/**
 * A process killed in the middle of an append can leave a partial last line. Loading would count
 * it as corruption and, in a small file, refuse to load (more than 10% corrupt); that write was
 * never acknowledged, so cut it off instead.
 */
async function dropTornTail(file: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - 64 * 1024);
      const chunk = Buffer.alloc(end - start);
      await handle.read(chunk, 0, chunk.length, start);
      const newline = chunk.lastIndexOf(0x0a);
      if (newline >= 0) {
        if (start + newline + 1 < size) await handle.truncate(start + newline + 1);
        return;
      }
      end = start;
    }
    if (size > 0) await handle.truncate(0);
  } finally {
    await handle.close();
  }
}
