/**
 * The meeting-session service: a registry (records, identity claims, event log, worker leases;
 * serves svc.meetings.*) and a worker (meeting actors and their bots). MEETING_SESSION_ROLE picks
 * one or both; the default runs both, which is what the embedded stack and a small deployment want.
 */
import path from 'node:path';
import type { EventEnvelope } from '@notetaker/contracts';
import type { RunningService, ServiceDefinition } from '@notetaker/kit';
import { loadMeetingSessionConfig } from './config.js';
import type { DriverFactory } from './drivers/driver.js';
import { lazyDriverFactory } from './driver-factory.js';
import { createSessionMetrics } from './metrics.js';
import { startRegistry, type RunningRegistry } from './registry/registry.js';
import { startWorker, type RunningWorker } from './worker/worker.js';

export interface MeetingSessionOptions {
  /** The meeting platform: default the browser drivers of src/drivers. */
  driverFactory?: DriverFactory;
  /** Called as each event is published, with its emit time (performance.now()); benchmarks. */
  onPublished?: (event: EventEnvelope, emittedAt: number) => void;
}

export interface RunningMeetingSession extends RunningService {
  registry: RunningRegistry | null;
  worker: RunningWorker | null;
}

export function meetingSessionService(options: MeetingSessionOptions = {}): ServiceDefinition<RunningMeetingSession> {
  return {
    name: 'meeting-session',
    async start(ctx): Promise<RunningMeetingSession> {
      const config = loadMeetingSessionConfig(ctx.config.env);
      let worker: RunningWorker | null = null;
      const metrics = createSessionMetrics(ctx.metrics, {
        activeMeetings: () => worker?.activeMeetings() ?? 0,
        seats: () => worker?.seats() ?? { inUse: 0, total: 0 },
        captionWarnings: () => worker?.captionWarnings() ?? [],
      });
      const registry =
        config.role === 'worker'
          ? null
          : await startRegistry({
              bus: ctx.bus,
              store: ctx.store,
              logger: ctx.logger,
              leaseMs: config.workerLeaseMs,
              sweepMs: config.heartbeatMs,
              retentionMs: config.eventLogRetentionMs,
              // Without NATS nothing outside this process can reach the registry.
              alone: !ctx.config.natsUrl,
              onRefusedForCapacity: metrics.onRefusedForCapacity,
            });
      const drivers = lazyDriverFactory(options.driverFactory, ctx.config.env, config);
      const onPublished = (event: EventEnvelope, emittedAt: number) => {
        metrics.onPublished(event, emittedAt);
        options.onPublished?.(event, emittedAt);
      };
      try {
        worker =
          config.role === 'registry'
            ? null
            : await startWorker({
                bus: ctx.bus,
                logger: ctx.logger,
                config,
                displayName: config.displayName,
                driverFactory: () => drivers.get(),
                closeDriverFactory: () => drivers.close(),
                onPublished,
                snapshotDir: path.join(ctx.config.dataDir, 'caption-snapshots'),
                onCaptionEpisode: metrics.onCaptionEpisode,
              });
      } catch (err) {
        await registry?.stop();
        throw err;
      }
      ctx.logger.info({ role: config.role, workerId: worker?.workerId }, 'meeting-session started');
      return {
        registry,
        worker,
        async stop() {
          // The worker first: its actors still need the registry to store their last events.
          await worker?.stop();
          await registry?.stop();
        },
      };
    },
  };
}
