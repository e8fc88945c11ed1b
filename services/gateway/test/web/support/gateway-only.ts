/**
 * The gateway alone on a fresh in-process bus: no other service answers. For the web pages'
 * "service unavailable" states, and for tests that need only identity and sessions (quick to start).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, type Bus } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import { openStore, type Store } from '@notetaker/store';
import { gatewayService, type RunningGateway } from '../../../src/index.js';

export interface GatewayOnly {
  baseUrl: string;
  /** The bus it answers on, where nothing else does. */
  bus: Bus;
  admin(command: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** A gateway on the bus and store given, configured from `env` (on any free port, logging nothing). */
export function startGateway(bus: Bus, store: Store, env: Record<string, string>): Promise<RunningGateway> {
  return gatewayService().start({
    bus,
    store,
    config: loadBaseConfig({ PORT: '0', LOG_LEVEL: 'silent', ...env }),
    logger: silentLogger(),
    metrics: createMetricsRegistry('gateway'),
  });
}

export async function startGatewayOnly(env: Record<string, string> = {}): Promise<GatewayOnly> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-web-'));
  const bus = await connectBus({ name: 'gateway-only' });
  const store = await openStore({ service: 'gateway', dataDir });
  const running = await startGateway(bus, store, { DATA_DIR: dataDir, SKILLS_DIR: dataDir, ...env });
  return {
    baseUrl: `http://127.0.0.1:${running.port}`,
    bus,
    admin: (command) => running.admin(command),
    async stop() {
      await running.stop();
      await bus.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Suite setup, called in a `describe` body: a gateway alone (startGatewayOnly), started before the
 * suite's tests and stopped after them. What it returns stands for that gateway while it runs.
 */
export function gatewayOnlyForSuite(env: Record<string, string> = {}): Omit<GatewayOnly, 'stop'> {
  let running: GatewayOnly | undefined;
  before(async () => {
    running = await startGatewayOnly(env);
  });
  after(() => running?.stop());
  const started = (): GatewayOnly => {
    if (!running) throw new Error('the suite gateway starts in its before hook');
    return running;
  };
  return {
    get baseUrl() {
      return started().baseUrl;
    },
    get bus() {
      return started().bus;
    },
    admin: (command) => started().admin(command),
  };
}
