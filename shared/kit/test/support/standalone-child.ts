/**
 * A service run alone by the kit's runtime, for service.spec.ts: it stores one document at start,
 * counts its requests in a metric, and on stop writes a marker, so the test sees each step of a
 * real process's life (start, health, metrics, graceful stop on a signal).
 */
import fs from 'node:fs';
import path from 'node:path';
import { runStandalone } from '../../src/service.js';

await runStandalone({
  name: 'kit-child',
  async start({ store, config }) {
    await store.collection('starts').insertOne({ at: new Date().toISOString() });
    return {
      ready: () => true,
      async stop() {
        fs.writeFileSync(path.join(config.dataDir, 'stopped'), 'yes');
      },
    };
  },
});
