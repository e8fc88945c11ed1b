/**
 * The other half of the meetings bench's production layout: transcript-store and meeting-session's
 * registry in a process of their own on NATS_URL (MEETING_SESSION_ROLE=registry), while the bench
 * process hosts the worker and its actors. Prints "ready" once serving; stops cleanly on SIGTERM.
 */
import { connectBus } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService } from '@notetaker/service-runtime';
import { meetingSessionService } from '@notetaker/meeting-session';
import { openStore, type Store } from '@notetaker/store';
import { transcriptStoreService } from '@notetaker/transcript-store';

const config = loadBaseConfig();
const bus = await connectBus({ natsUrl: config.natsUrl, name: 'bench-registry' });
const started: Array<{ running: RunningService; store: Store }> = [];
for (const definition of [transcriptStoreService(), meetingSessionService()]) {
  const store = await openStore({ service: definition.name, dataDir: config.dataDir });
  const metrics = createMetricsRegistry(definition.name);
  started.push({ running: await definition.start({ bus, store, config, logger: silentLogger(), metrics }), store });
}
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  for (const { running, store } of started.reverse()) {
    await running.stop();
    await store.close();
  }
  await bus.close();
  process.exit(0);
});
