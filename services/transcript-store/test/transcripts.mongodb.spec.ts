/**
 * The same contract on the MongoDB adapter, plus what only a shared store allows: two
 * transcript-store instances in one queue group. Needs a real MongoDB server: runs where
 * MONGODB_URL is set (e.g. MONGODB_URL=mongodb://localhost:27017), skipped with a note elsewhere.
 */
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { MemoryBroker } from '@notetaker/bus';
import { openStore } from '@notetaker/store';
import { startHarness, tempDirs, type StoreFactory } from './support/harness.js';
import { appendAll, flush, openMeeting } from './support/meetings.js';
import { transcriptStoreContract } from './transcripts.contract.js';
import { eventually } from '../../../test/support/wait.js';

const url = process.env.MONGODB_URL;
/** One database per test (keyed by its temp DATA_DIR), so a restart finds its data and tests stay apart. */
const services = new Map<string, string>();

const mongoStore: StoreFactory = {
  label: 'MongoDB',
  open(dataDir) {
    let service = services.get(dataDir);
    if (!service) {
      service = `ts-test-${process.pid}-${services.size}`;
      services.set(dataDir, service);
    }
    return openStore({ service, mongodbUrl: url });
  },
  async dispose() {
    if (services.size === 0) return;
    const client = new MongoClient(url!);
    try {
      for (const service of services.values()) await client.db(service.replace(/-/g, '_')).dropDatabase();
    } finally {
      await client.close();
    }
    services.clear();
  },
};

describe('transcript-store over the bus (MongoDB store)', function () {
  before(function () {
    if (!url) {
      console.log('      skipped: set MONGODB_URL to run transcript-store against a MongoDB server');
      this.skip();
    }
  });

  transcriptStoreContract(mongoStore);

  it('keeps every instance of a queue group able to find what another one flushed', async () => {
    const broker = new MemoryBroker();
    const dirs = tempDirs();
    const a = await startHarness(mongoStore, dirs, { broker });
    const b = await startHarness(mongoStore, dirs, { broker });
    try {
      const m = await openMeeting(a);
      await appendAll(a, m, ['a shared albatross']);
      await flush(a, m.meetingId);
      // The other instance learns of it from the saved notice and reads the segment from the store.
      await eventually(
        () => a.service.indexedSegments() >= 1 && b.service.indexedSegments() >= 1,
        'both instances to index the segment',
        5000,
      );
      // Requests go to either instance; every one of them must know the segment.
      for (let i = 0; i < 10; i++) {
        const { results } = await a.request<{ results: unknown[] }>('search', { q: 'albatross' });
        expect(results).to.have.length(1);
      }
      expect(a.service.indexedSegments()).to.equal(1);
      expect(b.service.indexedSegments()).to.equal(1);
    } finally {
      await b.stop();
      await a.dispose();
    }
  });
});
