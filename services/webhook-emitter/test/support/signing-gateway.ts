/**
 * The real gateway beside the emitter, for its tests and its bench: it owns the tokens and answers
 * svc.identity.signing-secret, from its own embedded store in the emitter's DATA_DIR.
 */
import type { Bus } from '@notetaker/bus';
import { gatewayService, type RunningGateway } from '@notetaker/gateway';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import { openStore } from '@notetaker/store';

export interface SigningGateway {
  gateway: RunningGateway;
  /** Creates an API token without capabilities: its id and the secret its callbacks are signed with. */
  createToken(name: string): Promise<{ id: string; signingSecret: string }>;
  /** Stops the gateway and closes its store (the bus and the folder stay the caller's). */
  stop(): Promise<void>;
}

/** Starts the gateway on `bus`, its store in `dataDir`, configured from `env` (any free port, logging nothing). */
export async function startSigningGateway(
  bus: Bus,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<SigningGateway> {
  const store = await openStore({ service: 'gateway', dataDir });
  const gateway = (await gatewayService().start({
    bus,
    store,
    config: loadBaseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...env }),
    logger: silentLogger(),
    metrics: createMetricsRegistry('gateway'),
  })) as RunningGateway;
  return {
    gateway,
    createToken: async (name) =>
      (await gateway.admin({ command: 'token.create', name, capabilities: [] })) as {
        id: string;
        signingSecret: string;
      },
    async stop() {
      await gateway.stop();
      await store.close();
    },
  };
}
