import { MongoClient } from 'mongodb';
import { expect } from 'chai';
import { openMongoStore, openStore } from '../src/index.js';
import { storeContract } from './store.contract.js';

// Needs a real MongoDB server, which development machines and the default CI job do not run:
// the suite only runs where MONGODB_URL is set (e.g. MONGODB_URL=mongodb://localhost:27017).
const url = process.env.MONGODB_URL;
const service = `store-test-${process.pid}`;
const database = service.replace(/-/g, '_');

async function dropDatabase(): Promise<void> {
  const client = new MongoClient(url!);
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

describe('mongodb store', function () {
  before(function () {
    if (!url) {
      console.log('      skipped: set MONGODB_URL to run the MongoDB adapter against a server');
      this.skip();
    }
  });

  describe('contract', () => {
    storeContract({
      open: async () => {
        await dropDatabase();
        return openStore({ service, mongodbUrl: url });
      },
      dispose: dropDatabase,
    });
  });

  it('maps the service name to a database and shares one client per URL', async () => {
    const a = await openMongoStore({ service, url: url! });
    const b = await openMongoStore({ service, url: url! });
    await a.collection('shared').insertOne({ _id: 'x' });
    await a.close();
    // b still works: the client closes only with its last store.
    expect(await b.collection('shared').findOne({ _id: 'x' })).to.deep.equal({ _id: 'x' });
    await b.close();
    const client = new MongoClient(url!);
    try {
      expect(await client.db(database).collection('shared').countDocuments()).to.equal(1);
    } finally {
      await client.close();
    }
    await dropDatabase();
  });
});
