/** The meeting-session service. Not built yet: it starts, answers health and stops cleanly. */
import type { RunningService, ServiceDefinition } from '@notetaker/kit';

export function meetingSessionService(): ServiceDefinition {
  return {
    name: 'meeting-session',
    async start(): Promise<RunningService> {
      return { async stop() {} };
    },
  };
}
