/** The task-scheduler's own environment variables (LLM_*, SKILLS_DIR, CONTENT_ROOT are in the base config). */
import { z } from 'zod';
import { envInt, envMs } from '@notetaker/config';

export const schedulerEnvSchema = z.object({
  /** Executions kept per task; older ones are pruned as new ones finish. */
  TASKS_HISTORY_LIMIT: envInt(1000, 1, 1_000_000),
  /** Model turns per execution before it fails. */
  TASKS_MAX_ITERATIONS: envInt(20, 1, 200),
  /** Skills running at once in this process; the rest wait (their timeout runs meanwhile). */
  TASKS_MAX_CONCURRENT: envInt(16, 1, 10_000),
  /** Scheduler lease time-to-live: a dead holder is replaced within this. */
  TASKS_LEASE_TTL_MS: envInt(20_000, 1000, 600_000),
  /** Retries of a failed model request (connection errors, 408/409/429/5xx), by the openai client. */
  TASKS_LLM_MAX_RETRIES: envInt(2, 0, 10),
  /** Days a meeting's recording is kept before the scheduler deletes it; unset or empty: kept. */
  RECORDING_RETENTION_DAYS: z
    .literal('')
    .transform(() => undefined)
    .or(z.coerce.number({ error: 'must be a number of days' }).int().min(1, 'must be at least 1').optional()),
  /** How often expired recordings are looked for. */
  RECORDING_RETENTION_SWEEP_MS: envMs(60 * 60_000),
  /** A stable identity for this instance (distributed mode); default: host, pid and a random part. */
  TASKS_INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1-100 of letters, digits . _ : -')
    .optional()
    .or(z.literal('').transform(() => undefined)),
});
