/**
 * The emitter's own environment variables (docs/services/webhook-emitter.md lists them). The
 * retry schedule is configurable so tests and benchmarks run in seconds.
 */
import { z } from 'zod';
import { ConfigError, envBool, envInt, parseEnv } from '@notetaker/config';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, then hourly (the last delay repeats) up to 24 h. */
export const DEFAULT_RETRY_DELAYS_MS = [1000, 5000, 30_000, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR];

const msList = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (!raw?.trim()) return DEFAULT_RETRY_DELAYS_MS;
    const values = raw.split(',').map((part) => Number(part.trim()));
    if (values.every((v) => Number.isInteger(v) && v >= 0)) return values;
    ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of milliseconds' });
    return z.NEVER;
  });

const list = z
  .string()
  .optional()
  .transform((raw) =>
    (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const emitterEnvSchema = z.object({
  WEBHOOK_TIMEOUT_MS: envInt(10_000, 1),
  WEBHOOK_RETRY_DELAYS_MS: msList,
  WEBHOOK_RETRY_HORIZON_MS: envInt(24 * HOUR, 0),
  /** 0: no limit other than the horizon. */
  WEBHOOK_MAX_ATTEMPTS: envInt(0, 0),
  WEBHOOK_RETRY_JITTER: z.coerce.number({ error: 'must be a number' }).min(0).max(1).default(0.2),
  WEBHOOK_RETRY_AFTER_MAX_MS: envInt(HOUR, 0),
  WEBHOOK_RECEIVER_CONCURRENCY: envInt(8, 1),
  WEBHOOK_GLOBAL_CONCURRENCY: envInt(256, 1),
  WEBHOOK_GAP_GRACE_MS: envInt(500, 0),
  WEBHOOK_GAP_TIMEOUT_MS: envInt(5 * MINUTE, 0),
  WEBHOOK_SWEEP_INTERVAL_MS: envInt(MINUTE, 100),
  WEBHOOK_LOG_RETENTION_DAYS: envInt(7, 1),
  WEBHOOK_SECRET_CACHE_MS: envInt(MINUTE, 0),
  CALLBACK_ALLOW_PRIVATE: envBool(true),
  CALLBACK_ALLOWED_HOSTS: list,
});

export interface EmitterConfig {
  timeoutMs: number;
  retry: {
    delaysMs: number[];
    horizonMs: number;
    maxAttempts: number;
    jitter: number;
    retryAfterMaxMs: number;
  };
  receiverConcurrency: number;
  globalConcurrency: number;
  gapGraceMs: number;
  gapTimeoutMs: number;
  sweepIntervalMs: number;
  retentionMs: number;
  secretCacheMs: number;
  allowPrivate: boolean;
  allowedHosts: string[];
}

export function loadEmitterConfig(env: NodeJS.ProcessEnv): EmitterConfig {
  const e = parseEnv(emitterEnvSchema, env);
  // A receiver must never be able to take every slot: that is what isolates the others from it.
  if (e.WEBHOOK_GLOBAL_CONCURRENCY <= e.WEBHOOK_RECEIVER_CONCURRENCY) {
    throw new ConfigError(['WEBHOOK_GLOBAL_CONCURRENCY: must be greater than WEBHOOK_RECEIVER_CONCURRENCY']);
  }
  // The log of an event is kept at least until it can no longer be retried.
  if (e.WEBHOOK_LOG_RETENTION_DAYS * 24 * HOUR <= e.WEBHOOK_RETRY_HORIZON_MS) {
    throw new ConfigError(['WEBHOOK_LOG_RETENTION_DAYS: must be longer than WEBHOOK_RETRY_HORIZON_MS']);
  }
  return {
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    retry: {
      delaysMs: e.WEBHOOK_RETRY_DELAYS_MS,
      horizonMs: e.WEBHOOK_RETRY_HORIZON_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      jitter: e.WEBHOOK_RETRY_JITTER,
      retryAfterMaxMs: e.WEBHOOK_RETRY_AFTER_MAX_MS,
    },
    receiverConcurrency: e.WEBHOOK_RECEIVER_CONCURRENCY,
    globalConcurrency: e.WEBHOOK_GLOBAL_CONCURRENCY,
    gapGraceMs: e.WEBHOOK_GAP_GRACE_MS,
    gapTimeoutMs: e.WEBHOOK_GAP_TIMEOUT_MS,
    sweepIntervalMs: e.WEBHOOK_SWEEP_INTERVAL_MS,
    retentionMs: e.WEBHOOK_LOG_RETENTION_DAYS * 24 * HOUR,
    secretCacheMs: e.WEBHOOK_SECRET_CACHE_MS,
    allowPrivate: e.CALLBACK_ALLOW_PRIVATE,
    allowedHosts: e.CALLBACK_ALLOWED_HOSTS,
  };
}
