/** The webhook-emitter service. Not built yet: it starts, answers health and stops cleanly. */
import type { RunningService, ServiceDefinition } from '@notetaker/kit';

export function webhookEmitterService(): ServiceDefinition {
  return {
    name: 'webhook-emitter',
    async start(): Promise<RunningService> {
      return { async stop() {} };
    },
  };
}
