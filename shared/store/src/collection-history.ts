/**
 * A history log (port.ts) kept in a collection: one document per record, `_id` `<key>:<seq>`, so
 * two writers racing for the same place get duplicate_key and the later one takes the next. The
 * MongoDB adapter's history, where the records live in the server and not in this process.
 */
import { ServiceError } from '@notetaker/contracts';
import { assertCounts, assertHistoryKey, assertHistoryRecord } from './history-rules.js';
import type { Collection, HistoryLog } from './port.js';

export type HistoryDoc = { _id: string; key: string; seq: number; record: string };

const APPEND_ATTEMPTS = 5;

export class CollectionHistoryLog implements HistoryLog {
  private readonly indexed: Promise<void>;

  constructor(private readonly records: Collection<HistoryDoc>) {
    this.indexed = records.createIndex({ key: 1, seq: -1 });
    this.indexed.catch(() => undefined); // reported by the first operation that awaits it
  }

  async append(key: string, record: string): Promise<number> {
    assertHistoryKey(key);
    assertHistoryRecord(record);
    await this.indexed;
    for (let attempt = 1; ; attempt++) {
      const seq = (await this.newestSeq(key, 0)) + 1;
      try {
        await this.records.insertOne({ _id: `${key}:${seq}`, key, seq, record });
        return await this.records.countDocuments({ key });
      } catch (err) {
        if (!(err instanceof ServiceError && err.code === 'duplicate_key') || attempt === APPEND_ATTEMPTS) throw err;
      }
    }
  }

  async newest(key: string, limit: number, skip = 0): Promise<string[]> {
    assertHistoryKey(key);
    assertCounts(limit, skip);
    if (limit === 0) return [];
    await this.indexed;
    const docs = await this.records.find({ key }, { sort: { seq: -1 }, skip, limit, projection: { record: 1 } });
    return docs.map((d) => d.record);
  }

  async trim(key: string, keep: number): Promise<void> {
    assertHistoryKey(key);
    assertCounts(keep);
    await this.indexed;
    const oldestDropped = await this.newestSeq(key, keep);
    if (oldestDropped > 0) await this.records.deleteMany({ key, seq: { $lte: oldestDropped } });
  }

  async drop(keys: string[]): Promise<void> {
    keys.forEach(assertHistoryKey);
    if (keys.length > 0) await this.records.deleteMany({ key: { $in: keys } });
  }

  /** The seq of the key's record after skipping `skip` newest, 0 when there is none. */
  private async newestSeq(key: string, skip: number): Promise<number> {
    const [doc] = await this.records.find({ key }, { sort: { seq: -1 }, skip, limit: 1, projection: { seq: 1 } });
    return doc?.seq ?? 0;
  }
}
