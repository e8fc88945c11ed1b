/**
 * Recordings kept RECORDING_RETENTION_DAYS at most: the scheduler's lease holder asks
 * transcript-store, once an hour, to delete the finished recordings that started before the
 * cutoff (transcript-store logs each one; this logs how many went). Unset: recordings are kept.
 */
import { routes } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';

export interface RecordingRetentionOptions {
  bus: Bus;
  logger: Logger;
  /** Days a recording is kept; null keeps them all. */
  days: number | null;
  sweepMs: number;
  /** Only the lease holder sweeps: one instance, not every one. */
  leader: () => boolean;
}

export function startRecordingRetention(options: RecordingRetentionOptions): {
  stop(): void;
  sweep(): Promise<string[]>;
} {
  const { bus, logger, days } = options;
  const sweep = async (): Promise<string[]> => {
    if (days === null || !options.leader()) return [];
    const before = new Date(Date.now() - days * 86_400_000).toISOString();
    try {
      const { deleted } = await call(bus, routes.recordings.expire, { before });
      if (deleted.length > 0) logger.info({ count: deleted.length, before, days }, 'expired recordings deleted');
      return deleted;
    } catch (err) {
      logger.warn({ err }, 'the recordings retention sweep failed; the next one tries again');
      return [];
    }
  };
  const timer = days === null ? null : setInterval(() => void sweep(), options.sweepMs);
  timer?.unref();
  return {
    sweep,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
