/**
 * The embedded adapter uses a few nedb internals (src/nedb-internals.ts). nedb is pinned to the
 * version they were checked against; an upgrade must come through here, where this test names
 * what changed, rather than reach users as lost writes.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { Datastore, indexesOf, NEDB_VERSION, nedbInternalsProblems } from '../src/nedb-internals.js';
import { toNedbQuery } from '../src/nedb-query.js';
import type { Filter } from '../src/port.js';

describe('embedded store: the nedb internals it relies on', () => {
  it('are all there, in the pinned version', () => {
    expect(nedbInternalsProblems()).to.deep.equal([]);
    const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies['@seald-io/nedb'], 'pinned exactly, no range').to.equal(NEDB_VERSION);
  });
});

describe('embedded store: which documents nedb matches a filter against', () => {
  type Raw = Record<string, unknown>;
  let db: InstanceType<typeof Datastore>;
  const candidates = (filter: Filter) =>
    (db as unknown as { _getRawCandidates(q: unknown): Raw[] })._getRawCandidates(toNedbQuery(filter)).length;
  const found = async (filter: Filter) =>
    ((await db.findAsync(toNedbQuery(filter))) as unknown as Raw[]).map((d) => d._id).sort();

  before(async () => {
    db = new Datastore({ inMemoryOnly: true });
    await db.ensureIndexAsync({ fieldName: 'status' });
    await db.ensureIndexAsync({ fieldName: 'name' });
    await db.insertAsync(
      Array.from({ length: 2000 }, (_, i) => ({ _id: `d${i}`, name: `n${i % 10}`, status: 'running', n: i })),
    );
  });

  it('draws from _id alone when a filter names it beside other indexed fields', async () => {
    expect(candidates({ _id: 'd7', status: 'running' })).to.equal(1);
    expect(candidates({ status: 'running', _id: 'd7', name: 'n7' })).to.equal(1);
    expect(candidates({ _id: { $in: ['d1', 'd2'] }, status: 'running' })).to.equal(2);
    expect(candidates({ _id: 'd7', $and: [{ status: 'running' }], n: { $gte: 0 } })).to.equal(1);
    // Without _id, nedb's own choice stands.
    expect(candidates({ name: 'n3' })).to.equal(200);
  });

  it('still holds every other condition', async () => {
    expect(await found({ _id: 'd7', status: 'running' })).to.deep.equal(['d7']);
    expect(await found({ _id: 'd7', status: 'done' })).to.deep.equal([]);
    expect(await found({ _id: { $in: ['d1', 'd2', 'd3'] }, n: { $gte: 2 } })).to.deep.equal(['d2', 'd3']);
    expect(await found({ _id: 'd7', $or: [{ name: 'n1' }, { name: 'n7' }] })).to.deep.equal(['d7']);
    expect(await found({ _id: 'd7', $and: [{ n: 7 }], name: 'n1' })).to.deep.equal([]);
  });
});

describe('embedded store: an index key shared by many documents', () => {
  type Raw = Record<string, unknown>;
  type Tree = { search(key: unknown): Raw[] };

  it('loses one document in place when one of them changes, and finds the rest as before', async () => {
    const db = new Datastore({ inMemoryOnly: true });
    await db.ensureIndexAsync({ fieldName: 'status' });
    await db.insertAsync(Array.from({ length: 1000 }, (_, i) => ({ _id: `d${i}`, status: 'running' })));
    const tree = (indexesOf(db).status as unknown as { tree: Tree }).tree;
    const running = tree.search('running');
    await db.updateAsync({ _id: 'd1' }, { $set: { status: 'done' } });
    await db.removeAsync({ _id: 'd2' }, {});
    await db.updateAsync({ _id: 'd3' }, { $set: { other: 1 } });
    expect(tree.search('running'), 'the same array, not a copy').to.equal(running);
    expect(running.length).to.equal(998);
    expect(((await db.findAsync({ status: 'running' })) as unknown as Raw[]).length).to.equal(998);
    expect((await db.findAsync({ status: 'done' })) as unknown as Raw[]).to.deep.equal([{ _id: 'd1', status: 'done' }]);
    const d3 = (await db.findOneAsync({ _id: 'd3' })) as unknown as Raw;
    expect(d3).to.deep.equal({ _id: 'd3', status: 'running', other: 1 });
    // Every document of the key moves: the key goes with the last one.
    await db.updateAsync({ status: 'running' }, { $set: { status: 'done' } }, { multi: true });
    expect(tree.search('running')).to.deep.equal([]);
    expect(((await db.findAsync({ status: 'done' })) as unknown as Raw[]).length).to.equal(999);
  });
});
