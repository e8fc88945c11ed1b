import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openEmbeddedStore, openStore, type StaleLock } from '../src/index.js';
import { eventually } from '../../../test/support/wait.js';
import { deadPid, procField, startChild } from './support/child.js';
import { CollectionHistoryLog, type HistoryDoc } from '../src/collection-history.js';
import { historyContract, rejectsWith, storeContract } from './store.contract.js';

/**
 * Runs store-child.ts with `args` until it has reported `<word> n` for n >= `atLeast`, kills it
 * with SIGKILL mid-stream and returns the largest n it reported: what was acknowledged.
 */
async function killWhileWriting(args: string[], word: string, atLeast: number): Promise<number> {
  const child = startChild(args);
  const reported = (line: string) => (line.startsWith(`${word} `) ? Number(line.split(' ')[1]) : -1);
  await child.waitFor((line) => reported(line) >= atLeast);
  child.process.kill('SIGKILL');
  await child.exited;
  expect(child.lines).to.not.include('done');
  return Math.max(...child.lines.map(reported));
}

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'store-test-'));
}

/** The data folder of the test running, in the suites that call freshDirForEachTest(). */
let dir: string;

/** Gives each test of the calling suite an empty data folder of its own, `dir`, removed after the test. */
function freshDirForEachTest(): void {
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));
}

describe('embedded store', () => {
  describe('contract', () => {
    let dir: string;
    storeContract({
      open: async () => {
        dir = await tempDir();
        return openStore({ service: 'contract-test', dataDir: dir });
      },
      dispose: () => fs.rm(dir, { recursive: true, force: true }),
    });
  });

  describe('files', () => {
    freshDirForEachTest();

    it('drops a non-unique compound index an older version wrote, and keeps its documents', async () => {
      const file = path.join(dir, 'svc', 'rows.db');
      await fs.mkdir(path.dirname(file), { recursive: true });
      const old = [
        { $$indexCreated: { fieldName: 'i,m', unique: false, sparse: false } },
        { _id: 'r1', m: 'a', i: 1 },
        { _id: 'r2', m: 'a', i: 2 },
      ];
      await fs.writeFile(file, old.map((line) => JSON.stringify(line) + '\n').join(''));
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const rows = store.collection('rows');
      await rows.createIndex({ m: 1, i: 1 });
      expect((await rows.find({ m: 'a', i: { $gt: 1 } })).map((r) => r._id)).to.deep.equal(['r2']);
      await store.close();
      const reloaded = (await fs.readFile(file, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const indexes = reloaded.filter((l) => l.$$indexCreated).map((l) => l.$$indexCreated.fieldName);
      expect(indexes).to.deep.equal(['m']);
      expect(reloaded.filter((l) => l._id).length).to.equal(2);
    });

    it('loads a datafile as nedb (the engine of earlier versions) wrote it, and writes the same format', async () => {
      // Written by @seald-io/nedb 4.1.2: indexes, Dates, an update, a removal, an index made and dropped.
      const written = [
        '{"$$indexCreated":{"fieldName":"email","unique":true,"sparse":false}}',
        '{"$$indexCreated":{"fieldName":"a,b","unique":true,"sparse":false}}',
        '{"_id":"a","email":"a@x","at":{"$$date":1700000000000},"nested":{"when":{"$$date":0},"list":[1,"two",null]}}',
        '{"_id":"b","email":"b@x","a":1,"b":2}',
        '{"_id":"a","email":"a@x","at":{"$$date":1700000000000},"nested":{"when":{"$$date":0},"list":[1,"two",null]},"n":1}',
        '{"$$deleted":true,"_id":"b"}',
        '{"$$indexCreated":{"fieldName":"gone"}}',
        '{"$$indexRemoved":"gone"}',
      ];
      const file = path.join(dir, 'svc', 'users.db');
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, written.map((line) => `${line}\n`).join(''));
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const users = store.collection('users');
      const a = {
        _id: 'a',
        email: 'a@x',
        at: new Date(1700000000000),
        nested: { when: new Date(0), list: [1, 'two', null] },
        n: 1,
      };
      expect(await users.find({})).to.deep.equal([a]);
      expect(await users.findOne({ at: { $gt: new Date(1600000000000) } })).to.deep.equal(a);
      await rejectsWith(users.insertOne({ email: 'a@x' }), 'duplicate_key');
      await users.insertOne({ _id: 'c', email: 'c@x', a: 1, b: 2 });
      await rejectsWith(users.insertOne({ email: 'd@x', a: 1, b: 2 }), 'duplicate_key');
      await store.close();
      const rewritten = (await fs.readFile(file, 'utf8')).trim().split('\n');
      expect(rewritten).to.deep.equal([written[4], '{"_id":"c","email":"c@x","a":1,"b":2}', written[0], written[1]]);
    });

    it('keeps data and indexes across close and reopen, one file per collection', async () => {
      const first = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const users = first.collection('users');
      await users.createIndex({ email: 1 }, { unique: true });
      await users.insertOne({ _id: 'u1', email: 'a@x', n: 1 });
      await users.updateOne({ _id: 'u1' }, { $inc: { n: 1 } });
      await first.collection('other').insertOne({ v: 1 });
      await first.close();
      expect((await fs.readdir(path.join(dir, 'svc'))).sort()).to.deep.equal(['other.db', 'users.db']);

      const second = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      expect(await second.collection('users').findOne({ _id: 'u1' })).to.deep.equal({ _id: 'u1', email: 'a@x', n: 2 });
      await rejectsWith(second.collection('users').insertOne({ email: 'a@x' }), 'duplicate_key');
      await second.collection('users').dropIndex({ email: 1 });
      await second.close();

      const third = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      await third.collection('users').insertOne({ email: 'a@x' });
      expect(await third.collection('users').countDocuments({ email: 'a@x' }), 'dropped for good').to.equal(2);
      await third.close();
    });

    it('compacts: superseded lines are gone after close', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const c = store.collection('counters');
      await c.insertOne({ _id: 'k', n: 0 });
      for (let i = 0; i < 50; i++) await c.updateOne({ _id: 'k' }, { $inc: { n: 1 } });
      await c.insertOne({ _id: 'gone' });
      await c.deleteOne({ _id: 'gone' });
      await store.close();
      const lines = (await fs.readFile(path.join(dir, 'svc', 'counters.db'), 'utf8')).trim().split('\n');
      expect(lines.map((l) => JSON.parse(l))).to.deep.equal([{ _id: 'k', n: 50 }]);
    });

    it('appends to the new file after a periodic compaction replaced it', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir, compactionIntervalMs: 10 });
      const c = store.collection('notes');
      await c.insertOne({ _id: 'a' });
      await c.updateOne({ _id: 'a' }, { $set: { v: 1 } });
      const file = path.join(dir, 'svc', 'notes.db');
      const compacted = async () => (await fs.readFile(file, 'utf8')).trim().split('\n').length === 1;
      await eventually(compacted, 'the periodic compaction', 2000);
      await c.insertOne({ _id: 'b' });
      // Read while the store is open: the close would rewrite the file from memory anyway.
      const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
      expect(lines.map((l) => JSON.parse(l))).to.deep.equal([{ _id: 'a', v: 1 }, { _id: 'b' }]);
      await store.close();
    });

    it('drops a torn last line left by a killed process instead of refusing to load', async () => {
      const folder = path.join(dir, 'svc');
      await fs.mkdir(folder);
      await fs.writeFile(path.join(folder, 'c.db'), '{"_id":"a","n":1}\n{"_id":"b","n":');
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      expect(await store.collection('c').find({})).to.deep.equal([{ _id: 'a', n: 1 }]);
      await store.close();
    });

    it('refuses operations after close', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const c = store.collection('c');
      await store.close();
      await rejectsWith(c.find({}), 'store_closed');
      expect(() => store.collection('c')).to.throw(/closed/);
    });

    it('keeps every acknowledged write when the writing process is killed mid-stream', async function () {
      this.timeout(60_000);
      const acked = await killWhileWriting([dir, 'svc', 'write', '100000'], 'written', 400);

      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir }); // takes over the stale LOCK
      const items = store.collection('items');
      expect(await items.countDocuments({ seq: { $lt: acked } })).to.equal(acked);
      const total = await items.countDocuments();
      expect(total).to.be.at.least(acked);
      expect(new Set((await items.find({})).map((d) => d.seq)).size).to.equal(total);
      expect(((await store.collection('meta').findOne({ _id: 'progress' }))?.written as number) >= acked).to.equal(
        true,
      );
      await store.close();
    });
  });

  describe('history files', () => {
    freshDirForEachTest();

    it('keeps one file per key, records across a reopen, and cuts off a line torn by a crash', async () => {
      const first = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      for (let i = 1; i <= 3; i++) await first.historyLog('runs').append('task-a', `{"n":${i}}`);
      await first.historyLog('runs').append('task-b', '{"n":1}');
      await first.close();
      const folder = path.join(dir, 'svc', 'runs.history');
      expect((await fs.readdir(folder)).sort()).to.deep.equal(
        ['task-a', 'task-b'].map((k) => Buffer.from(k).toString('base64url')).sort(),
      );
      // What a process killed in the middle of a write leaves: part of a line, and a trim's new file.
      await fs.appendFile(path.join(folder, Buffer.from('task-a').toString('base64url')), '{"n":4');
      await fs.writeFile(path.join(folder, `${Buffer.from('task-b').toString('base64url')}.trim`), 'partial');

      const second = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const history = second.historyLog('runs');
      expect(await history.newest('task-a', 10)).to.deep.equal(['{"n":3}', '{"n":2}', '{"n":1}']);
      expect(await history.append('task-a', '{"n":4}')).to.equal(4);
      expect(await history.newest('task-a', 1)).to.deep.equal(['{"n":4}']);
      expect(await fs.readdir(folder)).to.have.length(2, 'the torn trim is gone');
      await second.close();
      await rejectsWith(history.newest('task-a', 1), 'store_closed');
    });

    it('reads the newest of a long history from its end', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const history = store.historyLog('runs');
      const record = (i: number) => JSON.stringify({ i, pad: 'p'.repeat(500) });
      for (let i = 1; i <= 1000; i++) await history.append('k', record(i));
      expect(await history.newest('k', 3, 200)).to.deep.equal([record(800), record(799), record(798)]);
      await history.trim('k', 150);
      expect(await history.newest('k', 1, 149)).to.deep.equal([record(851)]);
      await store.close();
    });
  });

  describe("history log in a collection (the MongoDB adapter's), on this store", () => {
    let dir: string;
    let store: Awaited<ReturnType<typeof openEmbeddedStore>>;
    let n = 0;
    before(async () => {
      dir = await tempDir();
      store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
    });
    after(async () => {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    });
    historyContract(() => new CollectionHistoryLog(store.collection<HistoryDoc>(`h${++n}`)));
  });

  describe('sequence log file', () => {
    freshDirForEachTest();
    const file = () => path.join(dir, 'svc', 'events.log');
    const page = (key: string, first: number, last: number) => ({
      key,
      first,
      last,
      body: `[${key},${first},${last}]`,
    });

    it('keeps its pages across a reopen and cuts off a record torn by a crash', async () => {
      const first = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      await first.sequenceLog('events').append([page('m1', 1, 2), page('m2', 1, 1), page('m1', 3, 3)]);
      await first.close();
      // What a process killed in the middle of a write leaves: a header and part of its body.
      await fs.appendFile(file(), '{"key":"m1","first":4,"last":4,"bytes":100}\n[half');

      const second = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const log = second.sequenceLog('events');
      expect(await log.pagesAfter('m1', 0, 10)).to.deep.equal([page('m1', 1, 2), page('m1', 3, 3)]);
      await log.append([page('m1', 4, 5)]);
      await second.close();

      const third = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      expect(await third.sequenceLog('events').pagesAfter('m1', 2, 10)).to.deep.equal([
        page('m1', 3, 3),
        page('m1', 4, 5),
      ]);
      expect(await third.sequenceLog('events').lastSequence('m2')).to.equal(1);
      await third.close();
    });

    it('keeps every acknowledged page when the appending process is killed mid-stream', async function () {
      this.timeout(60_000);
      const acked = await killWhileWriting([dir, 'svc', 'log', '1000000'], 'logged', 2000);

      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const log = store.sequenceLog('events');
      for (const key of ['a', 'b', 'c']) {
        const last = await log.lastSequence(key);
        expect(last).to.be.at.least(acked);
        // Read in slices: a child that ran far ahead of the kill wrote gigabytes of pages.
        for (let after = 0; after < last; after += 1000) {
          const firsts = (await log.pagesAfter(key, after, 1000)).map((p) => p.first);
          const expected = Array.from({ length: Math.min(1000, last - after) }, (_, i) => after + i + 1);
          expect(firsts).to.deep.equal(expected);
        }
      }
      await log.append([page('a', (await log.lastSequence('a')) + 1, 1_000_000)]); // and it takes new pages
      await store.close();
    });

    it('replays a log of thousands of pages, some larger than its read-ahead, on open', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const log = store.sequenceLog('events');
      const big = { key: 'big', first: 1, last: 1, body: `["${'x'.repeat(3 * 1024 * 1024)}"]` };
      const unicode = { key: 'réunion', first: 1, last: 1, body: '["ünïcode"]' };
      for (let i = 1; i <= 300; i++) {
        await log.append(Array.from({ length: 10 }, (_, m) => page(`m${m}`, i, i)));
        if (i === 150) await log.append([big, unicode]);
      }
      await store.close();
      const reopened = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const replayed = reopened.sequenceLog('events');
      for (let m = 0; m < 10; m++) expect(await replayed.lastSequence(`m${m}`)).to.equal(300);
      expect(await replayed.pagesAfter('m7', 149, 2)).to.deep.equal([page('m7', 150, 150), page('m7', 151, 151)]);
      expect(await replayed.pagesAfter('big', 0, 1)).to.deep.equal([big]);
      expect(await replayed.pagesAfter('réunion', 0, 1)).to.deep.equal([unicode]);
      await reopened.close();
    });

    it('rewrites the file without dropped pages once they are most of it', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const log = store.sequenceLog('events');
      for (let i = 1; i <= 20; i++) await log.append([page('gone', i, i), ...(i <= 5 ? [page('kept', i, i)] : [])]);
      await log.drop(['gone']);
      await store.close();
      const text = await fs.readFile(file(), 'utf8');
      expect(text).to.not.include('gone');
      const reopened = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      const pages = await reopened.sequenceLog('events').pagesAfter('kept', 0, 100);
      expect(pages).to.deep.equal([1, 2, 3, 4, 5].map((i) => page('kept', i, i)));
      expect(await reopened.sequenceLog('events').lastSequence('gone')).to.equal(0);
      await reopened.close();
    });

    it('refuses to open a log damaged in the middle rather than drop what follows', async () => {
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      await store.sequenceLog('events').append([page('m', 1, 1), page('m', 2, 2)]);
      await store.close();
      const text = await fs.readFile(file(), 'utf8');
      await fs.writeFile(file(), text.replace('"first":1', '"first":1,'));
      const reopened = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      expect(() => reopened.sequenceLog('events')).to.throw(/events\.log is corrupt at byte 0/);
      await reopened.close();
    });
  });

  describe('lock', () => {
    freshDirForEachTest();

    it('a second process cannot open a folder another one holds; a killed holder leaves a lock that is taken over', async function () {
      this.timeout(30_000);
      const holder = startChild([dir, 'svc', 'hold']);
      await holder.waitFor((line) => line === 'ready');
      const folder = path.join(dir, 'svc');
      const err = await rejectsWith(openEmbeddedStore({ service: 'svc', dataDir: dir }), 'store_locked');
      expect(err.message).to.equal(
        `The data folder ${folder} is open in process ${holder.process.pid}; stop it or use its API`,
      );

      holder.process.kill('SIGKILL');
      await holder.exited;
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      expect((await fs.readFile(path.join(folder, 'LOCK'), 'utf8')).trim()).to.match(
        new RegExp(`^${process.pid} \\d+$`),
      );

      const contender = startChild([dir, 'svc', 'hold']);
      const line = await contender.waitFor((l) => l.startsWith('{'));
      expect(JSON.parse(line).error).to.deep.equal({
        code: 'store_locked',
        message: `The data folder ${folder} is open in process ${process.pid}; stop it or use its API`,
      });
      expect(await contender.exited).to.equal(1);
      await store.close();
      await fs.access(path.join(folder, 'LOCK')).then(
        () => expect.fail('LOCK should be removed on close'),
        () => undefined,
      );
    });

    it('takes over a LOCK whose pid is dead or is our own pid from an earlier life, saying why', async () => {
      const folder = path.join(dir, 'svc');
      await fs.mkdir(folder);
      const dead = await deadPid();
      await fs.writeFile(path.join(folder, 'LOCK'), `${dead}\n`);
      const stale: StaleLock[] = [];
      const first = await openEmbeddedStore({ service: 'svc', dataDir: dir, onStaleLock: (s) => stale.push(s) });
      await rejectsWith(openEmbeddedStore({ service: 'svc', dataDir: dir }), 'store_locked');
      await first.close();
      expect(stale).to.deep.equal([{ file: path.join(folder, 'LOCK'), pid: dead, reason: 'dead' }]);

      await fs.writeFile(path.join(folder, 'LOCK'), `${process.pid}\n`);
      const second = await openEmbeddedStore({ service: 'svc', dataDir: dir });
      await second.close();
    });

    it('takes over a LOCK whose holder is a zombie (its process tree was killed at once)', async function () {
      // The forked child exits at once and its parent never waits for it: a zombie. (Perl, which every
      // Debian has, rather than a shell: a shell may reap a background job before it execs.)
      const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork; exit 0 unless $pid; print "$pid\\n"; sleep 30'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      try {
        const zombie = Number((await once(parent.stdout!, 'data'))[0].toString().trim());
        await eventually(() => procField(zombie, 0) === 'Z');
        const stale = await openOver(`${zombie} ${procField(zombie, 19)}`);
        expect(stale).to.deep.equal([{ file: path.join(dir, 'svc', 'LOCK'), pid: zombie, reason: 'zombie' }]);
      } finally {
        parent.kill('SIGKILL');
      }
    });

    it('takes over a LOCK naming a live, unrelated process (its pid was reused); a live holder keeps it', async () => {
      const unrelated = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        const pid = unrelated.pid!;
        const startTime = Number(procField(pid, 19));
        const stale = await openOver(`${pid} ${startTime - 1}`);
        expect(stale).to.deep.equal([{ file: path.join(dir, 'svc', 'LOCK'), pid, reason: 'pid_reused' }]);
        // The same pid with its own start time is a live holder: refused, named.
        const err = await rejectsWith(openOver(`${pid} ${startTime}`), 'store_locked');
        expect(err.message).to.contain(`is open in process ${pid}`);
      } finally {
        unrelated.kill('SIGKILL');
      }
    });

    /** Opens the store over a LOCK holding `content`; the stale locks it reported. */
    async function openOver(content: string): Promise<StaleLock[]> {
      const folder = path.join(dir, 'svc');
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(path.join(folder, 'LOCK'), `${content}\n`);
      const stale: StaleLock[] = [];
      const store = await openEmbeddedStore({ service: 'svc', dataDir: dir, onStaleLock: (s) => stale.push(s) });
      await store.close();
      return stale;
    }

    it('rejects service names that are not a plain folder name', async () => {
      for (const service of ['../up', 'a/b', '', 'Upper']) {
        await rejectsWith(openEmbeddedStore({ service, dataDir: dir }), 'bad_request');
      }
      await rejectsWith(openStore({ service: 'svc' }), 'bad_request');
    });
  });
});
