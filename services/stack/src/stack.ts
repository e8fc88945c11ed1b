/**
 * Every service in one process: the embedded default behind `npm start`, and what whole-stack
 * tests start. Each service keeps its own store (its own folder or database), exactly as when it
 * runs alone; only the bus is shared (in-process unless NATS_URL is set).
 */
import type { Bus } from '@notetaker/bus';
import { connectBus } from '@notetaker/bus';
import { gatewayService, type RunningGateway } from '@notetaker/gateway';
import type { BaseConfig } from '@notetaker/config';
import { createLogger, createMetricsRegistry, type Logger } from '@notetaker/observability';
import { openServiceStore, type RunningService, type ServiceDefinition } from '@notetaker/service-runtime';
import { meetingSessionService, type DriverFactory } from '@notetaker/meeting-session';
import { projectCatalogService } from '@notetaker/project-catalog';
import type { Store } from '@notetaker/store';
import { taskSchedulerService } from '@notetaker/task-scheduler';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { webhookEmitterService } from '@notetaker/webhook-emitter';

export interface Stack {
  /** The gateway's HTTP port. */
  port: number;
  bus: Bus;
  /** Runs an identity command (the CLI's verbs) in this process's gateway. */
  admin(command: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

interface Started {
  name: string;
  running: RunningService;
  store: Store;
}

export interface StackOptions {
  /** The meeting platform drivers; default: the real puppeteer drivers configured from the env. */
  driverFactory?: DriverFactory;
}

export async function startStack(
  config: BaseConfig,
  logger: Logger = createLogger({ process: 'stack' }),
  options: StackOptions = {},
): Promise<Stack> {
  const bus = await connectBus({ natsUrl: config.natsUrl, name: 'stack' });
  // One registry for the one process: the gateway's /metrics shows every service's metrics (their
  // names are distinct), and the process's own metrics once.
  const metrics = createMetricsRegistry('stack');
  const started: Started[] = [];
  const ready = () => started.length === definitions.length && started.every((s) => s.running.ready?.() ?? true);
  const readinessDetails = () => Object.assign({}, ...started.map((s) => s.running.readiness?.() ?? {}));
  const gateway = gatewayService({ ready, readinessDetails });
  // The gateway goes last: it takes requests only once the services behind it answer.
  const definitions: ServiceDefinition[] = [
    transcriptStoreService(),
    projectCatalogService(),
    webhookEmitterService(),
    meetingSessionService({ driverFactory: options.driverFactory }),
    taskSchedulerService(),
    gateway,
  ];
  try {
    for (const definition of definitions) {
      const serviceLogger = logger.child({ service: definition.name });
      const store = await openServiceStore(definition.name, config, serviceLogger);
      try {
        const running = await definition.start({ bus, store, config, logger: serviceLogger, metrics });
        started.push({ name: definition.name, running, store });
      } catch (err) {
        await store.close();
        throw err;
      }
    }
  } catch (err) {
    await stopAll(started, bus);
    throw err;
  }
  const runningGateway = started[started.length - 1].running as RunningGateway;
  return {
    port: runningGateway.port,
    bus,
    admin: (command) => runningGateway.admin(command),
    stop: () => stopAll(started, bus),
  };
}

/** Reverse order: the gateway stops taking requests before the services behind it go. */
async function stopAll(started: Started[], bus: Bus): Promise<void> {
  for (const service of [...started].reverse()) {
    await service.running.stop();
  }
  await bus.close();
  for (const service of started) await service.store.close();
  started.length = 0;
}
