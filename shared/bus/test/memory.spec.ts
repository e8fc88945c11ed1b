import { MemoryBroker, MemoryBus } from '../src/index.js';
import { busContract } from './bus.contract.js';

busContract('memory', async () => {
  // A broker per test: connections on it see each other and nothing from other tests.
  const broker = new MemoryBroker();
  const a = new MemoryBus({ broker });
  const b = new MemoryBus({ broker });
  return { a, b, cleanup: async () => void (await Promise.all([a.close(), b.close()])) };
});
