/**
 * Runs the real task-scheduler service for a test: a real embedded store in a temp folder, a real
 * in-process bus on a private broker (nothing else answers on it unless the test starts it), and
 * the service's own metrics registry.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type client from 'prom-client';
import { MemoryBroker, MemoryBus } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService } from '@notetaker/service-runtime';
import { openStore, type Store } from '@notetaker/store';
import { taskSchedulerService, type TaskSchedulerOptions } from '../src/service.js';
export { eventually, sleep } from '../../../test/support/wait.js';

export interface Instance {
  running: RunningService;
  metrics: client.Registry;
  /** Sum of a counter's values with these labels. */
  counter(name: string, labels?: Record<string, string>): Promise<number>;
}

export interface Harness {
  dataDir: string;
  skillsDir: string;
  contentRoot: string;
  bus: MemoryBus;
  store: Store;
  env: Record<string, string>;
  request<T = any>(verb: keyof typeof routes.tasks, data: unknown): Promise<T>;
  /** Starts another instance on the same store and bus. */
  startInstance(options?: TaskSchedulerOptions): Promise<Instance>;
  first: Instance;
  /** Stops every instance (the store stays open). */
  stopInstances(): Promise<void>;
  /** Stops every instance and closes the store, then opens it again and starts one instance. */
  restart(options?: TaskSchedulerOptions): Promise<Instance>;
  stop(): Promise<void>;
}

export async function startHarness(
  env: Record<string, string> = {},
  options: TaskSchedulerOptions = { allowSecondsField: true },
): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'task-scheduler-test-'));
  const skillsDir = env.SKILLS_DIR ?? path.resolve('skills');
  const contentRoot = path.join(dataDir, 'content');
  fs.mkdirSync(path.join(contentRoot, 'deployed-md-files/docs'), { recursive: true });
  const fullEnv = { DATA_DIR: dataDir, CONTENT_ROOT: contentRoot, SKILLS_DIR: skillsDir, LOG_LEVEL: 'silent', ...env };
  const config = loadBaseConfig(fullEnv);
  const bus = new MemoryBus({ broker: new MemoryBroker() });
  let store = await openStore({ service: 'task-scheduler', dataDir });
  const instances: Instance[] = [];

  const startInstance = async (instanceOptions: TaskSchedulerOptions = options): Promise<Instance> => {
    const metrics = createMetricsRegistry('task-scheduler');
    const running = await taskSchedulerService(instanceOptions).start({
      bus,
      store,
      config,
      logger: silentLogger(),
      metrics,
    });
    const instance: Instance = {
      running,
      metrics,
      async counter(name, labels = {}) {
        const metric = await metrics.getSingleMetric(name)?.get();
        return (metric?.values ?? [])
          .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
          .reduce((sum, v) => sum + v.value, 0);
      },
    };
    instances.push(instance);
    return instance;
  };

  const stopAll = async () => {
    for (const instance of instances.splice(0)) await instance.running.stop();
  };

  const harness: Harness = {
    dataDir,
    skillsDir,
    contentRoot,
    bus,
    get store() {
      return store;
    },
    env: fullEnv,
    request: (verb, data) => bus.request(routes.tasks[verb].subject, data, { timeoutMs: 10_000 }),
    startInstance,
    stopInstances: stopAll,
    first: await startInstance(),
    async restart(restartOptions = options) {
      await stopAll();
      await store.close();
      store = await openStore({ service: 'task-scheduler', dataDir });
      harness.first = await startInstance(restartOptions);
      return harness.first;
    },
    async stop() {
      await stopAll();
      await bus.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * For a describe block: starts a harness (with these env overrides) before its tests and stops it
 * after them. Returns the running harness; call it inside the tests.
 */
export function harnessForSuite(env: Record<string, string> = {}): () => Harness {
  let harness: Harness | undefined;
  before(async () => {
    harness = await startHarness(env);
  });
  after(() => harness?.stop());
  return () => harness!;
}
