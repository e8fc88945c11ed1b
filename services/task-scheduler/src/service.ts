/** The task-scheduler service. Not built yet: it starts, answers health and stops cleanly. */
import type { RunningService, ServiceDefinition } from '@notetaker/kit';

export function taskSchedulerService(): ServiceDefinition {
  return {
    name: 'task-scheduler',
    async start(): Promise<RunningService> {
      return { async stop() {} };
    },
  };
}
