/**
 * Starts the real transcript-store for a contract test: a real memory bus (its own broker), a
 * real store (embedded under a temp DATA_DIR, or MongoDB), a real temp CONTENT_ROOT.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryBroker, MemoryBus, type Bus } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { createMetricsRegistry, loadBaseConfig, silentLogger } from '@notetaker/kit';
import { openStore, type Store } from '@notetaker/store';
import { transcriptStoreService, type RunningTranscriptStore } from '../../src/index.js';

export interface StoreFactory {
  label: string;
  /** Opens the service's store (the same data each time within one test run). */
  open(dataDir: string): Promise<Store>;
  /** Removes the data after the suite. */
  dispose(): Promise<void>;
}

export const embeddedStore: StoreFactory = {
  label: 'embedded store',
  open: (dataDir) => openStore({ service: 'transcript-store', dataDir }),
  dispose: async () => {},
};

export interface Harness {
  bus: Bus;
  broker: MemoryBroker;
  store: Store;
  service: RunningTranscriptStore;
  dataDir: string;
  contentRoot: string;
  request<T = unknown>(verb: keyof typeof routes.transcripts, data: unknown): Promise<T>;
  /** Stops the service and closes its bus and store (the files stay for a restart). */
  stop(): Promise<void>;
  /** stop(), then starts a new instance on the same data. */
  restart(): Promise<Harness>;
  /** stop() and remove the temp folders. */
  dispose(): Promise<void>;
}

export function tempDirs(): { dataDir: string; contentRoot: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'transcript-store-test-'));
  const dataDir = path.join(base, 'data');
  const contentRoot = path.join(base, 'content');
  fs.mkdirSync(dataDir);
  fs.mkdirSync(contentRoot);
  return { dataDir, contentRoot };
}

export async function startHarness(
  factory: StoreFactory,
  dirs = tempDirs(),
  options: { broker?: MemoryBroker; env?: Record<string, string> } = {},
): Promise<Harness> {
  const broker = options.broker ?? new MemoryBroker();
  const bus = new MemoryBus({ broker });
  const store = await factory.open(dirs.dataDir);
  const config = loadBaseConfig({
    DATA_DIR: dirs.dataDir,
    CONTENT_ROOT: dirs.contentRoot,
    LOG_LEVEL: 'silent',
    TRANSCRIPT_FSYNC: 'false',
    ...options.env,
  });
  const service = await transcriptStoreService().start({
    bus,
    store,
    config,
    logger: silentLogger(),
    metrics: createMetricsRegistry('transcript-store'),
  });
  // The index is rebuilt in the background (search answers 503 meanwhile); tests start after it.
  await service.indexReady();
  let stopped = false;
  const harness: Harness = {
    bus,
    broker,
    store,
    service,
    ...dirs,
    request: (verb, data) => bus.request(routes.transcripts[verb].subject, data),
    async stop() {
      if (stopped) return;
      stopped = true;
      await service.stop();
      await bus.close();
      await store.close();
    },
    async restart() {
      await harness.stop();
      return startHarness(factory, dirs, { ...options, broker });
    },
    async dispose() {
      await harness.stop();
      fs.rmSync(path.dirname(dirs.dataDir), { recursive: true, force: true });
    },
  };
  return harness;
}
