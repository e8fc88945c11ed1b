/**
 * Starts the real transcript-store for a contract test: a real memory bus (its own broker), a
 * real store (embedded under a temp DATA_DIR, or MongoDB), a real temp CONTENT_ROOT.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Bus, MemoryBroker } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { startServiceUnderTest } from '@notetaker/service-runtime/test-support';
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
  const store = await factory.open(dirs.dataDir);
  const { bus, broker, running, stop } = await startServiceUnderTest(transcriptStoreService(), {
    store,
    broker: options.broker,
    env: {
      DATA_DIR: dirs.dataDir,
      CONTENT_ROOT: dirs.contentRoot,
      LOG_LEVEL: 'silent',
      TRANSCRIPT_FSYNC: 'false',
      ...options.env,
    },
  });
  // The index is rebuilt in the background (search answers 503 meanwhile); tests start after it.
  await running.indexReady();
  const harness: Harness = {
    bus,
    broker,
    store,
    service: running,
    ...dirs,
    request: (verb, data) => bus.request(routes.transcripts[verb].subject, data),
    stop,
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
