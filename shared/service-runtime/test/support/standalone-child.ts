/**
 * A service run alone by the service runtime, for service.spec.ts: it stores one document at start,
 * counts its requests in a metric, and on stop writes a marker, so the test sees each step of a
 * real process's life (start, health, metrics, graceful stop on a signal). CHILD_STOP=hang makes
 * its stop never finish, CHILD_STOP=fail makes it fail: what an operator's second signal is for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runStandalone } from '../../src/service.js';

await runStandalone({
  name: 'runtime-child',
  async start({ store, config }) {
    await store.collection('starts').insertOne({ at: new Date().toISOString() });
    return {
      ready: () => true,
      async stop() {
        if (process.env.CHILD_STOP === 'hang') await new Promise(() => setInterval(() => {}, 1000));
        if (process.env.CHILD_STOP === 'fail') throw new Error('stop failed');
        fs.writeFileSync(path.join(config.dataDir, 'stopped'), 'yes');
      },
    };
  },
});
