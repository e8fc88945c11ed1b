/** The transcript-store service. Not built yet: it starts, answers health and stops cleanly. */
import type { RunningService, ServiceDefinition } from '@notetaker/kit';

export function transcriptStoreService(): ServiceDefinition {
  return {
    name: 'transcript-store',
    async start(): Promise<RunningService> {
      return { async stop() {} };
    },
  };
}
