/**
 * The production layout for a suite: a registry harness in this process (transcript-store,
 * webhook-emitter, meeting-session as the registry) on the suite's nats-server, and meeting-session
 * workers as processes of their own on it, all with the same worker lease.
 */
import { spawnSession, type Child } from './child.js';
import { lateHarness, startHarness, type Harness } from './harness.js';
import { natsServerForSuite, type NatsSuite } from './nats-suite.js';

export interface RegistryOnNats extends NatsSuite {
  /** The registry's harness (started by the suite's `before` hook, stopped after the suite). */
  readonly h: Harness;
  /**
   * A worker process with its own data folder and an alone timeout far longer than any test,
   * killed after the suite (before the harness stops).
   */
  spawnWorker(env?: Record<string, string>): Child;
}

/** Call in a `describe` body, before the suite's own hooks. */
export function registryOnNats({ leaseMs }: { leaseMs: number }): RegistryOnNats {
  const nats = natsServerForSuite();
  let h: Harness | undefined;
  before(async () => {
    h = await startHarness(
      { MEETING_SESSION_ROLE: 'registry', WORKER_LEASE_MS: String(leaseMs) },
      { natsUrl: nats.url },
    );
    nats.release(() => h?.stop());
  });
  return {
    get url() {
      return nats.url;
    },
    release: nats.release,
    tempDir: nats.tempDir,
    h: lateHarness(() => h),
    spawnWorker(env = {}) {
      const worker = spawnSession('worker', {
        NATS_URL: nats.url,
        DATA_DIR: nats.tempDir('meeting-worker-'),
        MEETING_SESSION_ROLE: 'worker',
        WORKER_LEASE_MS: String(leaseMs),
        ALONE_TIMEOUT_MS: '600000',
        ...env,
      });
      nats.release(() => worker.kill());
      return worker;
    },
  };
}
