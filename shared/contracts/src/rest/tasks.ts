/** Tasks (docs/api/reference.md#tasks): skills run on demand or on a cron schedule, and their executions. */
import { z } from 'zod';
import { queryCount } from './query.js';

export const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** 1-64 of a-z 0-9 and '-', no leading, trailing or double hyphen. */
export const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const executionStatus = z.enum(['running', 'completed', 'failed', 'timeout', 'stale']);
export type ExecutionStatus = z.infer<typeof executionStatus>;

export const MAX_TASK_TIMEOUT_MS = 3_600_000;
export const DEFAULT_TASK_TIMEOUT_MS = 300_000;

const taskTimeout = z
  .number({ error: 'timeout must be a number of milliseconds' })
  .int('timeout must be a positive integer')
  .positive('timeout must be a positive integer')
  .max(MAX_TASK_TIMEOUT_MS, `timeout must be at most ${MAX_TASK_TIMEOUT_MS} ms`);
const skillName = z
  .string({ error: 'skillName is required and must be a string' })
  .regex(SKILL_NAME, 'skillName must be 1-64 of a-z, 0-9 and single hyphens');

/** One cron field: digits, names (jan, mon), `*`, `,`, `-`, `/`. The scheduler checks ranges. */
const CRON_FIELD = /^[A-Za-z0-9*,/-]{1,64}$/;
/** Exactly 5 fields (minute hour day-of-month month day-of-week); no @presets, no seconds. */
export function isFiveFieldCron(expression: string): boolean {
  const fields = expression.trim().split(/\s+/);
  return fields.length === 5 && fields.every((field) => CRON_FIELD.test(field));
}
export const CRON_FIELDS_MESSAGE =
  'cronExpression must have exactly 5 fields: minute hour day-of-month month day-of-week';
const cronExpression = z
  .string({ error: 'cronExpression must be a string' })
  .max(200, 'cronExpression must be at most 200 characters')
  .refine(isFiveFieldCron, CRON_FIELDS_MESSAGE);

// A zone name (Europe/Paris, UTC, Etc/GMT+5): no raw offsets, which are not IANA names.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+/-]{0,63}$/;
// Building an Intl.DateTimeFormat costs ~0.1 ms: remember the names already found good.
const knownZones = new Set<string>();
/** True for a time zone name this runtime's IANA database knows (case-insensitive, like Intl). */
export function isIanaTimeZone(name: string): boolean {
  if (knownZones.has(name)) return true;
  if (!ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return false;
  }
  if (knownZones.size < 10_000) knownZones.add(name);
  return true;
}
const timezone = z
  .string({ error: 'timezone must be a string' })
  .refine(isIanaTimeZone, 'timezone must be an IANA time zone name such as Europe/Paris or UTC');

const taskNameField = z
  .string({ error: 'name is required and must be a string' })
  .regex(TASK_NAME, 'name must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$');
const describedCron = 'A 5-field cron schedule (minute hour day-of-month month day-of-week), like "30 6 * * 1-5".';
const describedZone = 'The IANA time zone the schedule runs in, like Europe/Paris (default UTC).';
const describedTimeout = 'Milliseconds a run may take before it is stopped (default 300000, at most 3600000).';

export const createTaskRequest = z.strictObject({
  name: taskNameField.describe('A unique name for the task (letters, digits, ., - and _).'),
  skillName: skillName.describe('The skill the task runs: a folder skills/<skillName>/SKILL.md on the server.'),
  cronExpression: cronExpression.optional().describe(`${describedCron} Omit for an on-demand task.`),
  timezone: timezone.optional().describe(describedZone),
  enabled: z
    .boolean({ error: 'enabled must be a boolean' })
    .optional()
    .describe('Whether the schedule is active (default true).'),
  timeout: taskTimeout.optional().describe(describedTimeout),
});
export type CreateTaskRequest = z.infer<typeof createTaskRequest>;

/** Partial update; `cronExpression: null` makes the task on-demand. */
export const updateTaskRequest = z.strictObject({
  skillName: skillName.optional().describe('A new skill for the task.'),
  cronExpression: cronExpression.nullable().optional().describe(`${describedCron} null makes the task on-demand.`),
  timezone: timezone.optional().describe(describedZone),
  enabled: z.boolean({ error: 'enabled must be a boolean' }).optional().describe('Turn the schedule on or off.'),
  timeout: taskTimeout.optional().describe(describedTimeout),
});
export type UpdateTaskRequest = z.infer<typeof updateTaskRequest>;

export const task = z.object({
  name: z.string(),
  skillName: z.string(),
  cronExpression: z.string().optional(),
  timezone: z.string(),
  enabled: z.boolean(),
  timeoutMs: z.number(),
  lastRunAt: z.string().nullable(),
  lastStatus: executionStatus.nullable(),
  nextRunAt: z.string().nullable(),
  isScheduled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Task = z.infer<typeof task>;

export const executionType = z.enum(['scheduled', 'manual']);
export const triggerType = z.enum(['cron', 'api', 'ui']);
export const taskExecution = z.object({
  executionId: z.string(),
  executionType,
  name: z.string(),
  status: executionStatus,
  triggerType,
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  resultSummary: z.string().nullable().optional(),
  inputTokens: z.number(),
  outputTokens: z.number(),
});
export type TaskExecution = z.infer<typeof taskExecution>;

export const MAX_HISTORY_LIMIT = 100;
export const historyQuery = z.strictObject({
  // 0 would mean "no limit" to both stores, so the smallest page is 1; above 100 is clamped.
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be a positive integer')
    .default(50)
    .transform((n) => Math.min(n, MAX_HISTORY_LIMIT))
    .describe(`How many executions to return, newest first (default 50, at most ${MAX_HISTORY_LIMIT}).`),
  offset: queryCount('offset').default(0).describe('How many of the newest executions to skip (default 0).'),
});

export const tasksQuery = z.strictObject({
  scheduled: z
    .enum(['true', 'false'], { error: 'scheduled must be true or false' })
    .optional()
    .describe('"true": only tasks with a cron schedule; "false": only on-demand tasks; omit for all.'),
});

/** A task named in the path (REST) or in the arguments (MCP). */
export const taskNameRequest = z.strictObject({
  name: z
    .string({ error: 'name is required and must be a string' })
    .describe('The task name, as list_tasks returns it.'),
});
/** update_task's arguments: the task, and the REST body of PUT /tasks/:name as `changes`. */
export const updateTaskByName = taskNameRequest.extend({
  changes: updateTaskRequest.describe('The fields to change; the others keep their value.'),
});
export const taskHistoryRequest = taskNameRequest.extend(historyQuery.shape);

export const taskResponse = z.object({ task });
export const tasksResponse = z.object({ tasks: z.array(task) });
export const taskDetailsResponse = z.object({
  task,
  recentExecutions: z.array(taskExecution.omit({ resultSummary: true })),
});
export const historyResponse = z.object({ executions: z.array(taskExecution) });

export const successResponse = z.object({ success: z.boolean(), message: z.string() });
export const runTaskResponse = successResponse.extend({ taskName: z.string() });
