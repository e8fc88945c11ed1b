/**
 * Services of the stack in a process of their own on NATS_URL, as the production layout runs them:
 * the benches measure that process (its CPU, its PSS) apart from the one driving the load. The
 * services are named on the command line (default: transcript-store and meeting-session, the
 * meetings bench's registry with MEETING_SESSION_ROLE=registry). Prints "ready" once serving; with
 * the gateway among them and an IPC channel, first sends `{ port, apiKey }` (a fresh token's key,
 * over the channel, never printed). Stops cleanly on SIGTERM.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { connectBus } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { gatewayService, type RunningGateway } from '@notetaker/gateway';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService, ServiceDefinition } from '@notetaker/service-runtime';
import { meetingSessionService } from '@notetaker/meeting-session';
import { openStore, type Store } from '@notetaker/store';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { webhookEmitterService } from '@notetaker/webhook-emitter';

export interface GatewayReady {
  port: number;
  apiKey: string;
}

/** Asked over the IPC channel: how late this process's event loop ran since the last ask, in ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

const known: Record<string, () => ServiceDefinition> = {
  'transcript-store': transcriptStoreService,
  'webhook-emitter': webhookEmitterService,
  'meeting-session': meetingSessionService,
  gateway: gatewayService,
};
const names = process.argv.length > 2 ? process.argv.slice(2) : ['transcript-store', 'meeting-session'];
const unknown = names.filter((name) => !known[name]);
if (unknown.length > 0) throw new Error(`service-process: unknown service ${unknown.join(', ')}`);

const config = loadBaseConfig();
const bus = await connectBus({ natsUrl: config.natsUrl, name: `bench-${names.join('+')}` });
const started: Array<{ name: string; running: RunningService; store: Store }> = [];
for (const name of names) {
  const definition = known[name]();
  const store = await openStore({ service: definition.name, dataDir: config.dataDir });
  const metrics = createMetricsRegistry(definition.name);
  const running = await definition.start({ bus, store, config, logger: silentLogger(), metrics });
  started.push({ name, running, store });
}
const gateway = started.find((s) => s.name === 'gateway')?.running as RunningGateway | undefined;
if (gateway && process.send) {
  const token = (await gateway.admin({
    command: 'token.create',
    name: 'bench',
    capabilities: ['knowledge:write'],
  })) as {
    apiKey: string;
  };
  process.send({ port: gateway.port, apiKey: token.apiKey } satisfies GatewayReady);
}
// A benchmark tells a busy loop (its own work, its collector) from a busy machine by this.
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
process.on('message', (message) => {
  if (message !== 'loop-delay') return;
  const ms = (ns: number) => ns / 1e6;
  process.send!({
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
  } satisfies LoopDelay);
  delay.reset();
});
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  for (const { running, store } of started.reverse()) {
    await running.stop();
    await store.close();
  }
  await bus.close();
  process.exit(0);
});
