/**
 * The embedded adapter's indexes (src/doc-indexes.ts) decide which documents a filter is matched
 * against, never which ones it matches: the same filters give the same answers with and without
 * them, and a lookup goes through the fewest documents an index offers.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openEmbeddedStore, type Collection, type Filter, type Store } from '../src/index.js';
import { compileFilter } from '../src/doc-filter.js';
import { Indexes } from '../src/doc-indexes.js';
import type { Raw } from '../src/doc-values.js';

const docs = Array.from({ length: 300 }, (_, i) => ({
  _id: `d${i}`,
  status: ['running', 'ended', 'error'][i % 3],
  ownerId: `o${i % 7}`,
  tags: i % 5 === 0 ? [] : [`t${i % 4}`, `t${(i + 1) % 4}`],
  n: i % 11,
  at: new Date(1_700_000_000_000 + i * 1000),
  ...(i % 10 === 0 ? {} : { key: `k${i}` }),
  ...(i % 13 === 0 ? { nul: null } : {}),
}));

describe('embedded store: indexes', () => {
  let dir: string;
  let store: Store;
  let plain: Collection;
  let indexed: Collection;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'store-indexes-'));
    store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
    plain = store.collection('plain');
    indexed = store.collection('indexed');
    for (const field of ['status', 'ownerId', 'tags', 'n', 'at', 'nul']) await indexed.createIndex({ [field]: 1 });
    await indexed.createIndex({ key: 1 }, { unique: true, sparse: true });
    await plain.insertMany(docs);
    await indexed.insertMany(docs);
    // Moves between keys, so the indexes hold what the documents hold now.
    for (const c of [plain, indexed]) {
      await c.updateMany({ ownerId: 'o3' }, { $set: { status: 'ended' }, $push: { tags: 't9' } });
      await c.deleteMany({ n: 4, status: 'error' });
      await c.updateOne({ _id: 'd7' }, { $unset: { key: '' }, $set: { n: 10 } });
    }
  });
  after(async () => {
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const filters: Filter[] = [
    { status: 'ended' },
    { status: 'ended', ownerId: 'o3' },
    { ownerId: { $in: ['o1', 'o2'] }, status: { $ne: 'running' } },
    { tags: 't9' },
    { tags: { $in: ['t1', 'nope'] }, n: { $gt: 5 } },
    { n: 10 },
    { n: { $eq: 0 }, $or: [{ status: 'error' }, { tags: 't2' }] },
    { at: new Date(1_700_000_000_000 + 42_000) },
    { key: 'k42' },
    { key: null },
    { nul: null },
    { $and: [{ status: 'running' }, { ownerId: 'o5' }] },
    { _id: 'd12', status: 'ended' },
    { _id: { $in: ['d1', 'd2', 'd3', 'nope'] }, ownerId: 'o2' },
    { status: { $in: [] } },
  ];
  for (const filter of filters) {
    it(`answers ${JSON.stringify(filter)} as without indexes`, async () => {
      const sort = { _id: 1 } as const;
      const expected = await plain.find(filter, { sort });
      expect(await indexed.find(filter, { sort })).to.deep.equal(expected);
      expect(await indexed.countDocuments(filter)).to.equal(expected.length);
    });
  }

  it('draws candidates from the index with the fewest documents for the filter', () => {
    const indexes = new Indexes();
    const raw = docs as unknown as Raw[];
    indexes.create({ fieldName: 'status', unique: false, sparse: false }, raw);
    indexes.create({ fieldName: 'ownerId', unique: false, sparse: false }, raw);
    const drawn = (filter: Filter) => {
      const found = indexes.candidates(compileFilter(filter).pins);
      return found === null ? null : [...found].length;
    };
    expect(drawn({ status: 'running' })).to.equal(100);
    expect(drawn({ status: 'running', ownerId: 'o1' })).to.equal(43);
    expect(drawn({ ownerId: { $in: ['o1', 'o2'] }, status: 'error' })).to.equal(86);
    expect(drawn({ n: 3 }), 'no index on n').to.equal(null);
    expect(drawn({ $or: [{ status: 'running' }] }), 'an $or pins nothing').to.equal(null);
    expect(drawn({ status: { $ne: 'running' } })).to.equal(null);
  });
});
