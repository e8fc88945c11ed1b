/**
 * The service runtime. A service is a `ServiceDefinition`: given a bus, its own store and the
 * config, it starts and returns a handle to stop it. The same definition runs alone against NATS
 * (`runStandalone`) or beside the others in one process (services/stack).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type client from 'prom-client';
import type { Bus } from '@notetaker/bus';
import { connectBus } from '@notetaker/bus';
import type { Store } from '@notetaker/store';
import { openStore } from '@notetaker/store';
import { loadBaseConfig, type BaseConfig } from '@notetaker/config';
import { createLogger, createMetricsRegistry, opsRouter, type Logger } from '@notetaker/observability';
import { onShutdownSignal } from './shutdown.js';

export interface ServiceContext {
  bus: Bus;
  store: Store;
  config: BaseConfig;
  logger: Logger;
  metrics: client.Registry;
}

export interface RunningService {
  /** Stops taking work, lets in-flight work finish, releases resources. Bus and store stay open. */
  stop(): Promise<void>;
  ready?(): boolean;
  /** Shown on /readyz beside the status, never failing it (meeting-session: whether bots have a browser). */
  readiness?(): Record<string, unknown>;
  /** The HTTP port the service listens on, for a service that serves HTTP itself. */
  port?: number;
}

export interface ServiceDefinition<R extends RunningService = RunningService> {
  /** Also the store's name: one MongoDB database or one embedded folder per service. */
  name: string;
  /** True when the service serves /healthz itself (the gateway); else runStandalone adds it. */
  servesHttp?: boolean;
  start(ctx: ServiceContext): Promise<R>;
}

export interface HttpServerHandle {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

/** Serves `app` over HTTP; close() stops accepting, then ends idle keep-alive sockets. */
export async function serveHttp(app: Koa, port: number, host: string): Promise<HttpServerHandle> {
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // In-flight requests get a grace period; then the sockets go regardless.
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      }),
  };
}

/** A service's own store (MongoDB or its embedded folder); a stale LOCK taken over is logged once. */
export function openServiceStore(service: string, config: BaseConfig, logger: Logger): Promise<Store> {
  return openStore({
    service,
    dataDir: config.dataDir,
    mongodbUrl: config.mongodbUrl,
    onStaleLock: ({ file, pid, reason }) =>
      logger.warn({ lock: file, pid, reason }, 'took over the lock of a process that is gone'),
  });
}

/** Runs one service as its own process: its bus from NATS_URL, its store, /healthz on PORT. */
export async function runStandalone(definition: ServiceDefinition): Promise<void> {
  const config = loadBaseConfig();
  const logger = createLogger({ service: definition.name, level: config.logLevel });
  if (!config.natsUrl) logger.warn('NATS_URL is not set: this service runs on an in-process bus and reaches no other');
  const bus = await connectBus({ natsUrl: config.natsUrl, name: definition.name });
  const store = await openServiceStore(definition.name, config, logger);
  const metrics = createMetricsRegistry(definition.name);
  const running = await definition.start({ bus, store, config, logger, metrics });

  let ops: HttpServerHandle | null = null;
  if (!definition.servesHttp) {
    const app = new Koa();
    app.use(
      opsRouter({
        registry: metrics,
        ready: () => running.ready?.() ?? true,
        details: () => running.readiness?.() ?? {},
      }).routes(),
    );
    ops = await serveHttp(app, config.port, config.host);
  }
  // The handler goes in before the line that says the service is up: a supervisor (or a test)
  // that signals as soon as it reads that line must find the drain, not the default exit.
  onShutdownSignal(logger, async () => {
    await ops?.close();
    await running.stop();
    await bus.close();
    await store.close();
  });
  logger.info({ port: ops?.port ?? running.port }, 'service started');
}
