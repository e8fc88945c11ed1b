/**
 * The behaviour every Store adapter must show, run against each of them (embedded.spec.ts,
 * mongodb.spec.ts). Each test works in a collection of its own, so one store serves the suite.
 */
import { expect } from 'chai';
import { ServiceError } from '@notetaker/contracts';
import type { Collection, Document, HistoryLog, Store } from '../src/index.js';

export interface ContractHooks {
  /** A store on empty storage. */
  open(): Promise<Store>;
  /** Removes what `open` created, after the store is closed. */
  dispose?(): Promise<void>;
}

export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal(code);
    return err as ServiceError;
  }
  return expect.fail(`expected a ServiceError ${code}`);
}

const ids = (docs: Document[]) => docs.map((d) => d._id);

export function storeContract(hooks: ContractHooks): void {
  let store: Store;
  let counter = 0;
  const fresh = <T extends Document = Document>(): Collection<T> => store.collection<T>(`c${++counter}`);

  before(async () => {
    store = await hooks.open();
  });
  after(async () => {
    await store?.close();
    await hooks.dispose?.();
  });

  describe('insert and find', () => {
    it('generates a string _id when absent and keeps a given one', async () => {
      const c = fresh();
      const a = await c.insertOne({ name: 'a' });
      const b = await c.insertOne({ _id: 'fixed', name: 'b' });
      expect(a._id).to.be.a('string').with.length.greaterThan(10);
      expect(b._id).to.equal('fixed');
      expect(await c.findOne({ _id: a._id })).to.deep.equal({ _id: a._id, name: 'a' });
      expect(await c.findOne({ name: 'zzz' })).to.equal(null);
    });

    it('finds by a list of ids: missing ones skipped, sorted and limited, copies the caller may change', async () => {
      const c = fresh();
      await c.insertMany([3, 1, 2, 5].map((n) => ({ _id: `id${n}`, n, tags: ['t'] })));
      const found = await c.find({ _id: { $in: ['id2', 'nope', 'id3', 'id1', 'id2'] } }, { sort: { n: -1 } });
      expect(found).to.deep.equal([3, 2, 1].map((n) => ({ _id: `id${n}`, n, tags: ['t'] })));
      expect(ids(await c.find({ _id: { $in: ['id5', 'id1'] } }, { sort: { n: 1 }, limit: 1 }))).to.deep.equal(['id1']);
      expect(await c.find({ _id: { $in: [] } })).to.deep.equal([]);
      (found[0].tags as string[]).push('changed');
      expect((await c.findOne({ _id: 'id3' }))?.tags).to.deep.equal(['t']);
    });

    it('insertMany stores documents in order, ids generated or kept; a duplicate stores none after it', async () => {
      const c = fresh();
      expect(await c.insertMany([])).to.deep.equal([]);
      const [a, b] = await c.insertMany([{ name: 'a' }, { _id: 'b', name: 'b' }]);
      expect(a._id).to.be.a('string').with.length.greaterThan(10);
      expect(b._id).to.equal('b');
      expect(ids(await c.find({}, { sort: { name: 1 } }))).to.deep.equal([a._id, 'b']);
      await rejectsWith(
        c.insertMany([
          { _id: 'b', name: 'again' },
          { _id: 'after', name: 'after' },
        ]),
        'duplicate_key',
      );
      expect(await c.findOne({ _id: 'b' })).to.deep.equal({ _id: 'b', name: 'b' });
      expect(await c.findOne({ _id: 'after' })).to.equal(null);
    });

    describe('filters', () => {
      let c: Collection;
      before(async () => {
        c = fresh();
        await c.insertOne({
          _id: 'a',
          n: 1,
          s: 'apple',
          tags: ['x', 'y'],
          profile: { city: 'Oslo' },
          items: [{ k: 'p' }, { k: 'q' }],
          at: new Date('2024-01-01'),
        });
        await c.insertOne({
          _id: 'b',
          n: 5,
          s: 'Banana',
          tags: ['y'],
          profile: { city: 'Rome' },
          items: [{ k: 'r' }],
          at: new Date('2024-06-01'),
          nul: null,
        });
        await c.insertOne({ _id: 'c', n: 10, s: 'cherry', tags: [], profile: {}, items: [] });
      });
      const q = async (filter: Record<string, unknown>) => ids(await c.find(filter, { sort: { _id: 1 } }));

      it('equality, on dotted paths and by array membership', async () => {
        expect(await q({ n: 5 })).to.deep.equal(['b']);
        expect(await q({ 'profile.city': 'Oslo' })).to.deep.equal(['a']);
        expect(await q({ tags: 'y' })).to.deep.equal(['a', 'b']);
        expect(await q({ 'items.k': 'q' })).to.deep.equal(['a']);
        expect(await q({ tags: ['x', 'y'] })).to.deep.equal(['a']);
        expect(await q({ profile: { city: 'Rome' } })).to.deep.equal(['b']);
        expect(await q({ n: { $eq: 10 } })).to.deep.equal(['c']);
        // null matches both null and missing
        expect(await q({ nul: null })).to.deep.equal(['a', 'b', 'c']);
        expect(await q({ 'profile.city': null })).to.deep.equal(['c']);
      });

      it('$ne, also on arrays (no element may equal) and missing fields', async () => {
        expect(await q({ n: { $ne: 5 } })).to.deep.equal(['a', 'c']);
        expect(await q({ tags: { $ne: 'x' } })).to.deep.equal(['b', 'c']);
        expect(await q({ 'profile.city': { $ne: 'Oslo' } })).to.deep.equal(['b', 'c']);
        expect(await q({ nul: { $ne: null } })).to.deep.equal([]);
      });

      it('$gt $gte $lt $lte on numbers, strings and dates', async () => {
        expect(await q({ n: { $gt: 1 } })).to.deep.equal(['b', 'c']);
        expect(await q({ n: { $gte: 5, $lte: 10 } })).to.deep.equal(['b', 'c']);
        expect(await q({ n: { $lt: 5 } })).to.deep.equal(['a']);
        expect(await q({ s: { $gte: 'b' } })).to.deep.equal(['c']); // binary order: 'B' < 'a' < 'b'
        expect(await q({ s: { $gte: 'Banana', $lt: 'b' } })).to.deep.equal(['a', 'b']);
        expect(await q({ at: { $gt: new Date('2024-03-01') } })).to.deep.equal(['b']);
      });

      it('$in and $nin, element-wise on arrays', async () => {
        expect(await q({ n: { $in: [1, 10, 99] } })).to.deep.equal(['a', 'c']);
        expect(await q({ tags: { $in: ['x', 'nope'] } })).to.deep.equal(['a']);
        expect(await q({ n: { $nin: [1, 10] } })).to.deep.equal(['b']);
        expect(await q({ tags: { $nin: ['x'] } })).to.deep.equal(['b', 'c']);
        expect(await q({ 'profile.city': { $nin: ['Rome'] } })).to.deep.equal(['a', 'c']);
        expect(await q({ s: { $in: [/^ch/, 'apple'] } })).to.deep.equal(['a', 'c']);
        expect(await q({ nul: { $in: [null] } })).to.deep.equal(['a', 'b', 'c']);
        expect(await q({ at: { $nin: [null] } })).to.deep.equal(['a', 'b']);
      });

      it('$exists, counting null values and empty arrays as present', async () => {
        expect(await q({ at: { $exists: true } })).to.deep.equal(['a', 'b']);
        expect(await q({ at: { $exists: false } })).to.deep.equal(['c']);
        expect(await q({ nul: { $exists: true } })).to.deep.equal(['b']);
        expect(await q({ tags: { $exists: true } })).to.deep.equal(['a', 'b', 'c']);
        expect(await q({ 'items.k': { $exists: false } })).to.deep.equal(['c']);
      });

      it('$regex as a RegExp or a string with $options', async () => {
        expect(await q({ s: /an/ })).to.deep.equal(['b']);
        expect(await q({ s: { $regex: /^b/i } })).to.deep.equal(['b']);
        expect(await q({ s: { $regex: '^[ab]', $options: 'i' } })).to.deep.equal(['a', 'b']);
        expect(await q({ tags: { $regex: '^x' } })).to.deep.equal(['a']);
      });

      it('$or and $and, nested', async () => {
        expect(await q({ $or: [{ n: 1 }, { 'profile.city': 'Rome' }] })).to.deep.equal(['a', 'b']);
        expect(await q({ $and: [{ tags: 'y' }, { n: { $gt: 1 } }] })).to.deep.equal(['b']);
        expect(await q({ tags: 'y', $or: [{ n: { $lt: 2 } }, { nul: { $exists: true } }] })).to.deep.equal(['a', 'b']);
        expect(await q({ $and: [{ $or: [{ n: 1 }, { n: 10 }] }, { at: { $exists: false } }] })).to.deep.equal(['c']);
      });

      it('countDocuments with and without a filter', async () => {
        expect(await c.countDocuments()).to.equal(3);
        expect(await c.countDocuments({ tags: 'y' })).to.equal(2);
        expect(await c.countDocuments({ n: { $gt: 100 } })).to.equal(0);
      });
    });

    describe('sort, skip, limit, projection', () => {
      let c: Collection;
      before(async () => {
        c = fresh();
        for (const [i, [group, rank]] of [
          ['b', 2],
          ['a', 3],
          ['b', 1],
          ['a', 1],
          ['c', 5],
        ].entries()) {
          await c.insertOne({ _id: `d${i}`, group, rank, extra: { keep: i }, drop: true });
        }
      });

      it('sorts by several keys in either direction', async () => {
        const docs = await c.find({}, { sort: { group: 1, rank: -1 } });
        expect(docs.map((d) => `${d.group}${d.rank}`)).to.deep.equal(['a3', 'a1', 'b2', 'b1', 'c5']);
        const down = await c.find({}, { sort: { rank: -1, group: -1 } });
        expect(down.map((d) => `${d.group}${d.rank}`)).to.deep.equal(['c5', 'a3', 'b2', 'b1', 'a1']);
      });

      it('skips and limits after sorting; findOne takes the first in order', async () => {
        const page = await c.find({}, { sort: { group: 1, rank: 1 }, skip: 1, limit: 2 });
        expect(page.map((d) => `${d.group}${d.rank}`)).to.deep.equal(['a3', 'b1']);
        expect((await c.findOne({ group: 'b' }, { sort: { rank: -1 } }))?.rank).to.equal(2);
        expect(await c.find({}, { limit: 3 })).to.have.length(3);
      });

      it('projects by inclusion (keeping _id unless excluded) and by exclusion', async () => {
        const [inc] = await c.find({ _id: 'd0' }, { projection: { group: 1, 'extra.keep': 1 } });
        expect(inc).to.deep.equal({ _id: 'd0', group: 'b', extra: { keep: 0 } });
        const [noId] = await c.find({ _id: 'd0' }, { projection: { rank: 1, _id: 0 } });
        expect(noId).to.deep.equal({ rank: 2 });
        const [exc] = await c.find({ _id: 'd0' }, { projection: { drop: 0, extra: 0 } });
        expect(exc).to.deep.equal({ _id: 'd0', group: 'b', rank: 2 });
        expect(await c.findOne({ _id: 'd4' }, { projection: { _id: 1 } })).to.deep.equal({ _id: 'd4' });
      });
    });
  });

  describe('updates', () => {
    it('updateOne applies $set (dotted) $inc $push $unset and reports counts', async () => {
      const c = fresh();
      await c.insertOne({ _id: 'u', n: 1, list: ['a'], gone: 'x', nested: { a: 1 } });
      const res = await c.updateOne(
        { _id: 'u' },
        { $set: { 'nested.b': 2, title: 't' }, $inc: { n: 2, fresh: 1 }, $push: { list: 'b' }, $unset: { gone: '' } },
      );
      expect(res).to.deep.equal({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
      expect(await c.findOne({ _id: 'u' })).to.deep.equal({
        _id: 'u',
        n: 3,
        list: ['a', 'b'],
        nested: { a: 1, b: 2 },
        title: 't',
        fresh: 1,
      });
      expect(await c.updateOne({ _id: 'u' }, { $set: { title: 't' } })).to.deep.equal({
        matchedCount: 1,
        modifiedCount: 0,
        upsertedId: null,
      });
      expect(await c.updateOne({ _id: 'none' }, { $set: { title: 't' } })).to.deep.equal({
        matchedCount: 0,
        modifiedCount: 0,
        upsertedId: null,
      });
    });

    it('upserts with the filter equalities and $setOnInsert, which only applies on insert', async () => {
      const c = fresh();
      const first = await c.updateOne(
        { key: 'k1', 'meta.kind': 'x', n: { $gt: 0 } },
        { $set: { seen: 1 }, $setOnInsert: { createdBy: 'me' }, $inc: { hits: 1 } },
        { upsert: true },
      );
      expect(first.matchedCount).to.equal(0);
      expect(first.upsertedId).to.be.a('string');
      expect(await c.findOne({ key: 'k1' })).to.deep.equal({
        _id: first.upsertedId,
        key: 'k1',
        meta: { kind: 'x' },
        seen: 1,
        createdBy: 'me',
        hits: 1,
      });
      const second = await c.updateOne(
        { key: 'k1' },
        { $set: { seen: 2 }, $setOnInsert: { createdBy: 'other' } },
        { upsert: true },
      );
      expect(second).to.deep.equal({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
      expect(await c.findOne({ key: 'k1' })).to.include({ seen: 2, createdBy: 'me' });
      const withId = await c.updateOne({ _id: 'given' }, { $set: { v: 1 } }, { upsert: true });
      expect(withId.upsertedId).to.equal('given');
      expect(await c.countDocuments()).to.equal(2);
    });

    it('updateMany updates every match', async () => {
      const c = fresh();
      for (const n of [1, 2, 3, 4]) await c.insertOne({ n, flag: n === 4 });
      expect(await c.updateMany({ n: { $gte: 2 } }, { $set: { flag: true } })).to.deep.equal({
        matchedCount: 3,
        modifiedCount: 2,
        upsertedId: null,
      });
      expect(await c.countDocuments({ flag: true })).to.equal(3);
      expect(await c.updateMany({ n: 99 }, { $set: { flag: false } })).to.deep.equal({
        matchedCount: 0,
        modifiedCount: 0,
        upsertedId: null,
      });
    });

    it('findOneAndUpdate returns the document after the update, or null', async () => {
      const c = fresh();
      await c.insertOne({ _id: 'f', n: 1 });
      expect(await c.findOneAndUpdate({ _id: 'f' }, { $inc: { n: 1 }, $push: { log: 'x' } })).to.deep.equal({
        _id: 'f',
        n: 2,
        log: ['x'],
      });
      expect(await c.findOneAndUpdate({ _id: 'missing' }, { $inc: { n: 1 } })).to.equal(null);
      const up = await c.findOneAndUpdate({ name: 'new' }, { $setOnInsert: { n: 0 } }, { upsert: true });
      expect(up).to.deep.include({ name: 'new', n: 0 });
      expect(up?._id).to.be.a('string');
    });

    it('rejects an update without operators', async () => {
      const c = fresh();
      await c.insertOne({ _id: 'r', n: 1 });
      await rejectsWith(c.updateOne({ _id: 'r' }, {}), 'bad_request');
      expect(await c.findOne({ _id: 'r' })).to.deep.equal({ _id: 'r', n: 1 });
    });
  });

  describe('deletes', () => {
    it('deleteOne and deleteMany return how many were removed', async () => {
      const c = fresh();
      for (const n of [1, 2, 3, 4, 5]) await c.insertOne({ n, odd: n % 2 === 1 });
      expect(await c.deleteOne({ odd: true })).to.equal(1);
      expect(await c.deleteOne({ n: 99 })).to.equal(0);
      expect(await c.deleteMany({ odd: true })).to.equal(2);
      expect(await c.deleteMany({})).to.equal(2);
      expect(await c.countDocuments()).to.equal(0);
    });
  });

  describe('indexes', () => {
    it('a unique index rejects duplicates with duplicate_key (409), on insert and update', async () => {
      const c = fresh();
      await c.createIndex({ email: 1 }, { unique: true });
      await c.createIndex({ email: 1 }, { unique: true }); // idempotent
      await c.insertOne({ email: 'a@x' });
      const b = await c.insertOne({ email: 'b@x' });
      const err = await rejectsWith(c.insertOne({ email: 'a@x' }), 'duplicate_key');
      expect(err.status).to.equal(409);
      await rejectsWith(c.updateOne({ _id: b._id }, { $set: { email: 'a@x' } }), 'duplicate_key');
      await rejectsWith(c.findOneAndUpdate({ _id: b._id }, { $set: { email: 'a@x' } }), 'duplicate_key');
      expect(await c.countDocuments({ email: 'a@x' })).to.equal(1);
      expect((await c.findOne({ _id: b._id }))?.email).to.equal('b@x');
    });

    it('a sparse unique index allows many documents without the field', async () => {
      const c = fresh();
      await c.createIndex({ handle: 1 }, { unique: true, sparse: true });
      await c.insertOne({ name: 'one' });
      await c.insertOne({ name: 'two' });
      await c.insertOne({ handle: 'h' });
      await rejectsWith(c.insertOne({ handle: 'h' }), 'duplicate_key');
      expect(await c.countDocuments()).to.equal(3);
    });

    it('a compound index: unique refuses the same pair only, non-unique serves its prefix and ranges', async () => {
      const pairs = fresh();
      await pairs.createIndex({ a: 1, b: 1 }, { unique: true });
      await pairs.insertOne({ a: 'x', b: 1 });
      await pairs.insertOne({ a: 'x', b: 2 });
      await pairs.insertOne({ a: 'y', b: 1 });
      await rejectsWith(pairs.insertOne({ a: 'x', b: 1 }), 'duplicate_key');

      const rows = fresh();
      await rows.createIndex({ m: 1, i: 1 });
      for (const m of ['m1', 'm2']) for (const i of [3, 1, 2, 2]) await rows.insertOne({ m, i });
      expect(await rows.countDocuments({ m: 'm1' })).to.equal(4);
      const range = await rows.find({ m: 'm2', i: { $gt: 1 } }, { sort: { i: 1 } });
      expect(range.map((r) => r.i)).to.deep.equal([2, 2, 3]);
      await rows.updateOne({ m: 'm2', i: 3 }, { $set: { m: 'm1' } });
      expect(await rows.countDocuments({ m: 'm1', i: { $gte: 3 } })).to.equal(2);
    });

    it('dropIndex removes what createIndex made, and is a no-op for an index that is not there', async () => {
      const c = fresh();
      await c.dropIndex({ k: 1 });
      await c.createIndex({ k: 1 }, { unique: true });
      await c.insertOne({ k: 1 });
      await rejectsWith(c.insertOne({ k: 1 }), 'duplicate_key');
      await c.dropIndex({ k: 1 });
      await c.dropIndex({ k: 1 });
      await c.insertOne({ k: 1 });
      expect(await c.countDocuments({ k: 1 })).to.equal(2);
      const pairs = fresh();
      await pairs.createIndex({ a: 1, b: 1 }, { unique: true });
      await pairs.insertOne({ a: 1, b: 1 });
      await pairs.dropIndex({ a: 1, b: 1 });
      await pairs.insertOne({ a: 1, b: 1 });
      expect(await pairs.countDocuments()).to.equal(2);
    });

    it('createIndex on existing duplicates fails with duplicate_key', async () => {
      const c = fresh();
      await c.insertOne({ k: 1 });
      await c.insertOne({ k: 1 });
      await rejectsWith(c.createIndex({ k: 1 }, { unique: true }), 'duplicate_key');
    });
  });

  describe('sequence log', () => {
    let logs = 0;
    const freshLog = () => store.sequenceLog(`log${++logs}`);
    const page = (key: string, first: number, last: number, body = `${key} ${first}-${last}`) => ({
      key,
      first,
      last,
      body,
    });

    it('appends pages of many keys in one go and reads each key back in order from a sequence', async () => {
      const log = freshLog();
      await log.append([page('m1', 1, 3), page('m2', 1, 1), page('m1', 4, 4)]);
      await log.append([
        page('réunion', 1, 2, 'ünïcode'),
        page('m2', 2, 5, '["é",{"nested":"\\n"}]'),
        page('m1', 5, 9),
      ]);
      expect(await log.pagesAfter('m1', 0, 10)).to.deep.equal([page('m1', 1, 3), page('m1', 4, 4), page('m1', 5, 9)]);
      expect(await log.pagesAfter('m1', 3, 10)).to.deep.equal([page('m1', 4, 4), page('m1', 5, 9)]);
      expect(await log.pagesAfter('m1', 5, 10)).to.deep.equal([page('m1', 5, 9)], 'the page holding sequence 6');
      expect(await log.pagesAfter('m1', 0, 2)).to.have.length(2);
      expect(await log.pagesAfter('m1', 9, 10)).to.deep.equal([]);
      expect((await log.pagesAfter('m2', 1, 10))[0].body).to.equal('["é",{"nested":"\\n"}]');
      expect(await log.pagesAfter('réunion', 0, 10)).to.deep.equal([page('réunion', 1, 2, 'ünïcode')]);
      expect(await log.pagesAfter('nobody', 0, 10)).to.deep.equal([]);
      expect([await log.lastSequence('m1'), await log.lastSequence('m2'), await log.lastSequence('x')]).to.deep.equal([
        9, 5, 0,
      ]);
    });

    it('refuses a second page at the same place with duplicate_key and keeps the first', async () => {
      const log = freshLog();
      await log.append([page('m', 1, 2, 'first writer')]);
      await rejectsWith(log.append([page('m', 1, 3, 'second writer')]), 'duplicate_key');
      await rejectsWith(log.append([page('n', 1, 1), page('n', 1, 1)]), 'duplicate_key');
      expect(await log.pagesAfter('m', 0, 10)).to.deep.equal([page('m', 1, 2, 'first writer')]);
      expect(await log.lastSequence('m')).to.equal(2);
    });

    it('drops keys whole and leaves the others', async () => {
      const log = freshLog();
      await log.append([page('a', 1, 1), page('b', 1, 2), page('c', 1, 1)]);
      await log.drop(['a', 'c', 'never-there']);
      await log.drop([]);
      expect(await log.pagesAfter('a', 0, 10)).to.deep.equal([]);
      expect(await log.lastSequence('c')).to.equal(0);
      expect(await log.pagesAfter('b', 0, 10)).to.deep.equal([page('b', 1, 2)]);
      await log.append([page('a', 1, 1, 'a again')]);
      expect(await log.pagesAfter('a', 0, 10)).to.deep.equal([page('a', 1, 1, 'a again')]);
    });

    it('answers 400 for a page without a key, with first after last, or without a text body', async () => {
      const log = freshLog();
      for (const bad of [page('', 1, 1), page('k', 3, 2), page('k', 0, 1), { ...page('k', 1, 1), body: 7 }]) {
        await rejectsWith(log.append([bad as never]), 'bad_request');
      }
      expect(await log.lastSequence('k')).to.equal(0);
    });
  });

  describe('history log', () => {
    let histories = 0;
    historyContract(() => store.historyLog(`history${++histories}`));
  });

  describe('isolation', () => {
    it('returns copies: mutating inputs or results does not change stored documents', async () => {
      const c = fresh<{ _id?: string; nested: { v: number }; list: number[]; x?: number }>();
      const input = { _id: 'i', nested: { v: 1 }, list: [1] };
      const inserted = await c.insertOne(input);
      input.nested.v = 99;
      inserted.list.push(2);
      const found = await c.findOne({ _id: 'i' });
      expect(found).to.deep.equal({ _id: 'i', nested: { v: 1 }, list: [1] });
      found!.nested.v = 42;
      const [listed] = await c.find({ _id: 'i' });
      listed.list.push(3);
      const updated = await c.findOneAndUpdate({ _id: 'i' }, { $set: { x: 1 } });
      updated!.nested.v = 7;
      expect(await c.findOne({ _id: 'i' })).to.deep.equal({ _id: 'i', nested: { v: 1 }, list: [1], x: 1 });
    });

    it('rejects collection names that could escape the folder or clash', async () => {
      for (const name of ['../x', 'a/b', 'A', '', '1abc', 'a.b', 'x'.repeat(65)]) {
        expect(() => store.collection(name), name).to.throw(ServiceError);
      }
    });
  });
}

/** What every history log does (port.ts HistoryLog); `fresh` gives an empty one each time. */
export function historyContract(fresh: () => HistoryLog): void {
  it('reads records back newest first, with skip and limit, per key', async () => {
    const history = fresh();
    for (let i = 1; i <= 5; i++) expect(await history.append('a', `a${i}`)).to.equal(i);
    expect(await history.append('b', '{"json":"é","n":1}')).to.equal(1);
    expect(await history.newest('a', 3)).to.deep.equal(['a5', 'a4', 'a3']);
    expect(await history.newest('a', 2, 2)).to.deep.equal(['a3', 'a2']);
    expect(await history.newest('a', 10, 4)).to.deep.equal(['a1']);
    expect(await history.newest('a', 10, 5)).to.deep.equal([]);
    expect(await history.newest('a', 0)).to.deep.equal([]);
    expect(await history.newest('b', 10)).to.deep.equal(['{"json":"é","n":1}']);
    expect(await history.newest('nobody', 10)).to.deep.equal([]);
  });

  it('trims a key to its newest records and goes on counting from there', async () => {
    const history = fresh();
    for (let i = 1; i <= 6; i++) await history.append('t', `r${i}`);
    await history.append('other', 'kept');
    await history.trim('t', 2);
    expect(await history.newest('t', 10)).to.deep.equal(['r6', 'r5']);
    await history.trim('t', 5);
    expect(await history.append('t', 'r7')).to.equal(3);
    expect(await history.newest('t', 10)).to.deep.equal(['r7', 'r6', 'r5']);
    await history.trim('t', 0);
    expect(await history.newest('t', 10)).to.deep.equal([]);
    expect(await history.newest('other', 10)).to.deep.equal(['kept']);
  });

  it('drops keys whole and leaves the others', async () => {
    const history = fresh();
    await history.append('x', '1');
    await history.append('y', '1');
    await history.drop(['x', 'never-there']);
    await history.drop([]);
    expect(await history.newest('x', 10)).to.deep.equal([]);
    expect(await history.newest('y', 10)).to.deep.equal(['1']);
    expect(await history.append('x', 'again')).to.equal(1);
  });

  it('holds records of any size, keys of any text, and answers 400 for a record with a newline or a bad key', async () => {
    const history = fresh();
    const big = 'x'.repeat(200_000);
    await history.append('../../etc/passwd', big);
    await history.append('../../etc/passwd', 'small');
    expect(await history.newest('../../etc/passwd', 2)).to.deep.equal(['small', big]);
    await rejectsWith(history.append('k', 'two\nlines'), 'bad_request');
    await rejectsWith(history.append('', 'r'), 'bad_request');
    await rejectsWith(history.append('k'.repeat(181), 'r'), 'bad_request');
    await rejectsWith(history.newest('k', -1), 'bad_request');
    expect(await history.newest('k', 10)).to.deep.equal([]);
  });
}
