/**
 * A second process for the embedded-store tests (durability, locking):
 *   store-child.ts <dataDir> <service> hold           open the store, print "ready", wait
 *   store-child.ts <dataDir> <service> write <count>  insert documents in batches, printing
 *                                                     "written <n>" once a batch is acknowledged
 *   store-child.ts <dataDir> <service> log <count>    append pages of 3 keys to the sequence log
 *                                                     `events`, printing "logged <n>" (pages of
 *                                                     each key 1..n stored) after each append
 * Errors are printed as one JSON line `{"error": {code, message}}` so the parent can assert them.
 */
import { openEmbeddedStore } from '../../src/embedded.js';
import { sleep } from '../../../../test/support/wait.js';

const [dataDir, service, mode, countArg] = process.argv.slice(2);
const BATCH = 20;
const FULL_SPEED_PAGES = 1000;

try {
  const store = await openEmbeddedStore({ service, dataDir });
  if (mode === 'hold') {
    process.stdout.write('ready\n');
    setInterval(() => undefined, 60_000);
  } else if (mode === 'log') {
    const log = store.sequenceLog('events');
    const body = JSON.stringify(['x'.repeat(2000)]);
    for (let n = 1; n <= Number(countArg); n++) {
      await log.append(['a', 'b', 'c'].map((key) => ({ key, first: n, last: n, body })));
      process.stdout.write(`logged ${n}\n`);
      // Past the first pages, a page a millisecond: a parent slow to kill (a busy machine) then
      // still kills it mid-stream, instead of after gigabytes of pages (50,000 a second unpaced).
      if (n > FULL_SPEED_PAGES) await sleep(1);
    }
    process.stdout.write('done\n');
    await store.close();
  } else {
    const items = store.collection('items');
    const meta = store.collection('meta');
    await items.createIndex({ seq: 1 }, { unique: true });
    const count = Number(countArg);
    for (let start = 0; start < count; start += BATCH) {
      const end = Math.min(start + BATCH, count);
      const batch = [];
      for (let seq = start; seq < end; seq++) batch.push(items.insertOne({ seq, payload: 'x'.repeat(300) }));
      await Promise.all(batch);
      await meta.updateOne({ _id: 'progress' }, { $set: { written: end } }, { upsert: true });
      process.stdout.write(`written ${end}\n`);
    }
    process.stdout.write('done\n');
    await store.close();
  }
} catch (err) {
  const { code, message } = err as { code?: string; message?: string };
  process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.exitCode = 1;
}
