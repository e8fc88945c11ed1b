/**
 * A service started in this process on a given bus, as the stack starts it: its own embedded store
 * in the config's data folder, silent logs, its own metrics registry.
 */
import type client from 'prom-client';
import type { Bus } from '@notetaker/bus';
import type { BaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger, type Logger } from '@notetaker/observability';
import type { RunningService, ServiceDefinition } from '@notetaker/service-runtime';
import { openStore, type Store } from '@notetaker/store';

export interface InProcessService {
  running: RunningService;
  store: Store;
  metrics: client.Registry;
  /** Stops the service, then closes its store. */
  stop(): Promise<void>;
}

export async function startInProcess(
  definition: ServiceDefinition,
  bus: Bus,
  config: BaseConfig,
  /** Default: silent. */
  logger: Logger = silentLogger(),
): Promise<InProcessService> {
  const store = await openStore({ service: definition.name, dataDir: config.dataDir });
  const metrics = createMetricsRegistry(definition.name);
  const running = await definition.start({ bus, store, config, logger, metrics });
  return {
    running,
    store,
    metrics,
    async stop() {
      await running.stop();
      await store.close();
    },
  };
}
