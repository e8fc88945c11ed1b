/**
 * The embedded store's collections alone (shared/store, no service around them), on this
 * machine's disk: what each kind of operation the services issue costs in CPU per operation, and
 * how long a reopen takes. Documents shaped like a registry's meetings (an owner, a status shared
 * by thousands, a unique sparse key) and like transcript segments (a meeting and an index).
 *
 * 1. insertOne, one at a time (every write appended to the file);
 * 2. updateOne by `{_id, status}` moving a document from a status shared by thousands to another;
 * 3. find by an indexed equality with `$in` on another field; by a list of 50 ids; a segment range
 *    of one meeting sorted and limited; countDocuments on an indexed field; a full scan with a range;
 * 4. deleteMany of a status; the reopen (load) of the collections.
 *
 * `npx tsx test/bench/store.bench.ts` (STORE_BENCH_DOCS, default 20,000).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEmbeddedStore, type Collection, type Store } from '@notetaker/store';

const DOCS = Number(process.env.STORE_BENCH_DOCS ?? 20_000);
const OWNERS = 100;
const MEETINGS = 100;

const rows: Array<{ label: string; ops: number; cpuUs: number; wallUs: number }> = [];

/** Runs `op` `ops` times one after another; CPU and wall time per operation. */
async function measure(label: string, ops: number, op: (i: number) => Promise<unknown>): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < ops; i++) await op(i);
  const wallUs = ((performance.now() - started) * 1000) / ops;
  const used = process.cpuUsage(cpu);
  rows.push({ label, ops, cpuUs: (used.user + used.system) / ops, wallUs });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bench-'));
const open = () => openEmbeddedStore({ service: 'bench', dataDir: dir });
let store: Store = await open();
try {
  let meetings: Collection = store.collection('meetings');
  let segments: Collection = store.collection('segments');
  await meetings.createIndex({ ownerId: 1, status: 1 });
  await meetings.createIndex({ status: 1 });
  await meetings.createIndex({ runningKey: 1 }, { unique: true, sparse: true });
  await segments.createIndex({ meetingId: 1, index: 1 });

  await measure('insertOne (meetings, 3 indexes)', DOCS, (i) =>
    meetings.insertOne({
      _id: `m${i}`,
      ownerId: `o${i % OWNERS}`,
      status: 'running',
      runningKey: `k${i}`,
      startedAt: 1_700_000_000_000 + i,
      url: `https://meet.google.com/abc-defg-${i}`,
      counts: { segments: 0, speakers: [] },
    }),
  );
  await measure('insertOne (segments)', DOCS, (i) =>
    segments.insertOne({
      meetingId: `m${i % MEETINGS}`,
      index: Math.floor(i / MEETINGS),
      speaker: i % 2 ? 'Alice' : 'Bob',
      text: `Sentence number ${i} of the benchmark meeting, long enough to be a real one.`,
    }),
  );
  await measure('updateOne {_id, status} running -> ended', DOCS / 2, (i) =>
    meetings.updateOne(
      { _id: `m${i * 2}`, status: 'running' },
      { $set: { status: 'ended', endedAt: 1_700_000_100_000 + i }, $unset: { runningKey: '' } },
    ),
  );
  await measure('find {ownerId, status: {$in}}', 2000, (i) =>
    meetings.find({ ownerId: `o${i % OWNERS}`, status: { $in: ['running', 'joining'] } }),
  );
  await measure('find {_id: {$in: 50 ids}} sorted', 2000, (i) =>
    meetings.find(
      { _id: { $in: Array.from({ length: 50 }, (_, k) => `m${(i * 50 + k) % DOCS}`) } },
      { sort: { startedAt: -1 } },
    ),
  );
  await measure('find segments {meetingId, index > n} sort limit 100', 2000, (i) =>
    segments.find({ meetingId: `m${i % MEETINGS}`, index: { $gt: i % 100 } }, { sort: { index: 1 }, limit: 100 }),
  );
  await measure('countDocuments {status}', 500, () => meetings.countDocuments({ status: 'ended' }));
  await measure('find full scan {startedAt < x, status $ne}', 50, (i) =>
    meetings.find({ startedAt: { $lt: 1_700_000_000_000 + DOCS / 2 + i }, status: { $ne: 'running' } }),
  );
  await measure('deleteMany {status: ended} (once)', 1, () => meetings.deleteMany({ status: 'ended' }));

  await store.close();
  const reopenStarted = performance.now();
  const reopenCpu = process.cpuUsage();
  store = await open();
  meetings = store.collection('meetings');
  segments = store.collection('segments');
  await meetings.countDocuments();
  await segments.countDocuments();
  const used = process.cpuUsage(reopenCpu);
  rows.push({
    label: `reopen (${DOCS / 2} meetings, ${DOCS} segments)`,
    ops: 1,
    cpuUs: used.user + used.system,
    wallUs: (performance.now() - reopenStarted) * 1000,
  });

  console.log(`store: embedded collections, ${DOCS} documents each (CPU and wall time per operation)`);
  for (const row of rows) {
    console.log(
      `  ${row.label.padEnd(56)} ${String(row.ops).padStart(6)} ops  CPU ${row.cpuUs.toFixed(1).padStart(9)} us  wall ${row.wallUs.toFixed(1).padStart(9)} us`,
    );
  }
  console.log(`  heap used after: ${(process.memoryUsage().heapUsed / 1024 / 1024).toFixed(1)} MB`);
} finally {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
