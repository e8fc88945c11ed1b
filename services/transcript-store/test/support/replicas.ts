/**
 * transcript-store replicas as production runs them, in this process: each on its own connection
 * to a real nats-server (one queue group), all on one shared store (the Store object stands for a
 * shared MongoDB) and one place for the recordings, each with its own storage adapter on it.
 *
 * A replica can stop (drains, lets its leases go) or crash: its bus connection closes at once and
 * its store answers nothing more, as for a process that was killed (its leases stay until they
 * run out).
 */
import { connect, type NatsConnection } from 'nats';
import type client from 'prom-client';
import { NatsBus } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { Document, Store } from '@notetaker/store';
import { transcriptStoreService, type RunningTranscriptStore, type TranscriptStoreOptions } from '../../src/index.js';
import { tempDir, type StoragePlace } from './recordings.js';

export interface Replica {
  running: RunningTranscriptStore;
  metrics: client.Registry;
  /** Sum of a counter's values whose labels include `labels`. */
  counted(name: string, labels?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
  crash(): Promise<void>;
}

export async function startReplica(
  natsUrl: string,
  shared: Store,
  place: StoragePlace,
  options: TranscriptStoreOptions = {},
): Promise<Replica> {
  const nc: NatsConnection = await connect({ servers: natsUrl, name: 'transcript-store' });
  const bus = new NatsBus(nc, { closeTimeoutMs: 2000 });
  const { store, sever } = severable(shared);
  const config = loadBaseConfig({
    DATA_DIR: place.dataDir,
    CONTENT_ROOT: tempDir('replica-content-'),
    LOG_LEVEL: 'silent',
    TRANSCRIPT_FSYNC: 'false',
    ...place.env,
  });
  const metrics = createMetricsRegistry('transcript-store');
  const running = await transcriptStoreService(options).start({
    bus,
    store,
    config,
    logger: silentLogger(),
    metrics,
  });
  await running.indexReady();
  let done = false;
  return {
    running,
    metrics,
    async counted(name, labels = {}) {
      const metric = metrics.getSingleMetric(name);
      if (!metric) throw new Error(`no metric ${name}`);
      const { values } = await metric.get();
      return values
        .filter((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value))
        .reduce((sum, v) => sum + v.value, 0);
    },
    async stop() {
      if (done) return;
      done = true;
      await running.stop();
      await bus.close();
    },
    async crash() {
      if (done) return;
      done = true;
      sever();
      await nc.close();
      // What is left of it in this process stops too, with nothing to reach.
      await running.stop().catch(() => {});
    },
  };
}

/** The shared store as one replica reaches it: closing it leaves the others' alone; sever() cuts it off. */
function severable(shared: Store): { store: Store; sever(): void } {
  let severed = false;
  const guarded = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, name, receiver) {
        const value = Reflect.get(object, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          severed
            ? Promise.reject(new Error('the store cannot be reached (the replica was cut off)'))
            : (value as (...a: unknown[]) => unknown).apply(object, args);
      },
    });
  return {
    store: {
      collection: <T extends Document>(name: string) => guarded(shared.collection<T>(name)),
      sequenceLog: (name) => guarded(shared.sequenceLog(name)),
      historyLog: (name) => guarded(shared.historyLog(name)),
      close: async () => {},
    },
    sever: () => {
      severed = true;
    },
  };
}
