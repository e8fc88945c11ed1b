/**
 * A sequence log (port.ts) kept in a collection: one document per page, `_id` `<key>:<first>` so
 * the store itself refuses a second page at the same place. The MongoDB adapter's log, where the
 * pages live in the server and not in this process.
 */
import { errors } from '@notetaker/contracts';
import type { Collection, LogPage, SequenceLog } from './port.js';

export type PageDoc = { _id: string; key: string; first: number; last: number; body: string };

export class CollectionSequenceLog implements SequenceLog {
  private readonly indexed: Promise<void>;

  constructor(private readonly pages: Collection<PageDoc>) {
    // Pages follow each other, so ordering by `last` is ordering by `first` too.
    this.indexed = pages.createIndex({ key: 1, last: 1 });
    this.indexed.catch(() => undefined); // reported by the first operation that awaits it
  }

  async append(pages: LogPage[]): Promise<void> {
    pages.forEach(assertPage);
    await this.indexed;
    await this.pages.insertMany(pages.map((page) => ({ _id: `${page.key}:${page.first}`, ...page })));
  }

  async pagesAfter(key: string, afterSequence: number, limit: number): Promise<LogPage[]> {
    await this.indexed;
    const docs = await this.pages.find({ key, last: { $gt: afterSequence } }, { sort: { last: 1 }, limit });
    return docs.map(({ key, first, last, body }) => ({ key, first, last, body }));
  }

  async lastSequence(key: string): Promise<number> {
    await this.indexed;
    const doc = await this.pages.findOne({ key }, { sort: { last: -1 }, projection: { last: 1 } });
    return doc?.last ?? 0;
  }

  async drop(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.pages.deleteMany({ key: { $in: keys } });
  }
}

export function assertPage(page: LogPage): void {
  const valid =
    typeof page.key === 'string' &&
    page.key.length > 0 &&
    isCount(page.first) &&
    isCount(page.last) &&
    page.first >= 1 &&
    page.first <= page.last &&
    typeof page.body === 'string';
  if (!valid) throw errors.badRequest('A log page needs a key, 1 <= first <= last (whole numbers) and a text body');
}

export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
