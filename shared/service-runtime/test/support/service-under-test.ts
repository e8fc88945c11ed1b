/**
 * A service started for its tests: on an in-process bus of its own (a private broker unless one is
 * given) and the store given, configured from `env`, logging nothing, with a fresh metrics registry.
 */
import { MemoryBroker, MemoryBus } from '@notetaker/bus';
import type { Store } from '@notetaker/store';
import { loadBaseConfig, type BaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService, ServiceDefinition } from '../../src/service.js';

export interface ServiceUnderTest<R extends RunningService> {
  bus: MemoryBus;
  broker: MemoryBroker;
  config: BaseConfig;
  running: R;
  /** Stops the service, then closes its bus and its store; later calls do nothing. */
  stop(): Promise<void>;
}

export async function startServiceUnderTest<R extends RunningService>(
  definition: ServiceDefinition<R>,
  options: { store: Store; env: Record<string, string>; broker?: MemoryBroker },
): Promise<ServiceUnderTest<R>> {
  const { store } = options;
  const broker = options.broker ?? new MemoryBroker();
  const bus = new MemoryBus({ broker });
  const config = loadBaseConfig(options.env);
  const running = await definition.start({
    bus,
    store,
    config,
    logger: silentLogger(),
    metrics: createMetricsRegistry(definition.name),
  });
  let stopped = false;
  return {
    bus,
    broker,
    config,
    running,
    async stop() {
      if (stopped) return;
      stopped = true;
      await running.stop();
      await bus.close();
      await store.close();
    },
  };
}
