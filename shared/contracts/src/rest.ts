/**
 * REST bodies of SPEC sections 2 and 4. Request schemas are strict (unknown fields are a 400) and
 * carry the messages a caller sees; response schemas document and test what we answer.
 */
import { z } from 'zod';
import { errors } from './errors.js';
// events.ts imports nothing from here, so the events page below can use its envelope without a cycle.
import { EVENT_TYPES, eventEnvelope, isoTimestamp, type EventEnvelope, type EventType } from './events.js';

export const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** 1-64 of a-z 0-9 and '-', no leading, trailing or double hyphen. */
export const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MEETING_ID = /^meeting_\d{13}_[A-Za-z0-9]{10,}$/;

export { isoTimestamp };

export const projectId = z.string({ error: 'project must be a string' }).regex(PROJECT_ID, {
  message: 'project must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$',
});

const httpUrl = (field: string) =>
  z.string({ error: `${field} is required and must be a string` }).refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, `${field} must be an http(s) URL`);

// ---- Meetings (SPEC 2.1, 4.1)

export const captionWarning = z.enum(['captions_unreadable', 'captions_unavailable', 'caption_language_unavailable']);
export type CaptionWarning = z.infer<typeof captionWarning>;
export const meetingStatus = z.enum(['joining', 'lobby', 'live', 'leaving', 'ended', 'error']);
export type MeetingStatus = z.infer<typeof meetingStatus>;
/** A meeting in one of these is over: its document is final and its event stream has ended. */
export const TERMINAL_STATUSES = ['ended', 'error'] as const satisfies readonly MeetingStatus[];
export const isTerminalStatus = (status: unknown): boolean => (TERMINAL_STATUSES as readonly unknown[]).includes(status);
/** The meeting_status event that ends a meeting's stream. */
export const isFinalStatusEvent = (event: Pick<EventEnvelope, 'type' | 'payload'>): boolean =>
  event.type === 'meeting_status' && isTerminalStatus(event.payload.status);
export const platform = z.enum(['google_meet', 'teams']);
export type Platform = z.infer<typeof platform>;

/** The rules of a start's fields, one definition for REST, MCP, the web form and the bus request. */
export const meetingUrl = z.string({ error: 'url is required and must be a string' }).min(1, 'url is required');
export const meetingTitle = z
  .string({ error: 'title must be a string' })
  .max(200, 'title must be at most 200 characters');
export const callbackUrl = httpUrl('callbackUrl');

/** How a bot gets in: as a guest, falling back to a signed-in bot account when guests are refused (auto). */
export const SIGN_IN_MODES = ['auto', 'always', 'never'] as const;
export const signInMode = z.enum(SIGN_IN_MODES, { error: 'signIn must be one of auto, always, never' });
export type SignInMode = z.infer<typeof signInMode>;
/** A BCP 47 language tag as the platforms' caption settings know them: de-DE, es, ja-JP, zh-Hant-TW. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;
export const captionLanguage = z
  .string({ error: 'language must be a string' })
  .regex(LANGUAGE_TAG, 'language must be a BCP 47 language tag such as de-DE, es or ja-JP');

/**
 * Who coaches a meeting: the rules alone, the rules and a language model beside them (`ai`), or
 * nobody. Unset, meeting-session picks `ai` when it has a model configured, else `rules`.
 */
export const COACH_MODES = ['rules', 'ai', 'off'] as const;
export const coachMode = z.enum(COACH_MODES, { error: 'coach must be one of rules, ai, off' });
export type CoachMode = z.infer<typeof coachMode>;

// The .describe() texts are for the MCP tools' input schemas: a model reads them to fill the fields.
export const startMeetingRequest = z.strictObject({
  url: meetingUrl.describe('The meeting link: a Google Meet (meet.google.com/...) or Microsoft Teams URL.'),
  title: meetingTitle.optional().describe('A label for the meeting; it also names the saved transcript document.'),
  callbackUrl: callbackUrl.describe(
    "An http(s) URL that receives every meeting event by POST, signed with the API token's signing secret.",
  ),
  project: projectId
    .optional()
    .describe(
      'The project to save the transcript into (letters, digits, - and _). Default "api"; created on first save.',
    ),
  saveTranscript: z
    .boolean({ error: 'saveTranscript must be a boolean' })
    .optional()
    .describe('Save the transcript as a markdown document in the project (default true; needs knowledge:write).'),
  signIn: signInMode
    .optional()
    .describe(
      'How the bot joins: "auto" (default) as a guest, signing in with a bot account if guests are refused; "always" signed in; "never" as a guest only.',
    ),
  language: captionLanguage
    .optional()
    .describe("The meeting's spoken language for captions, a BCP 47 tag such as de-DE or ja-JP (default: the platform's)."),
  coach: coachMode
    .optional()
    .describe(
      'coach_insight events: "rules" (talk balance, monologue, pace, unanswered questions), "ai" (the rules and a language model: decisions, action items, objections, risks...), "off" (none). Default "ai" when the service has a model configured, else "rules".',
    ),
});

export const startMeetingResponse = z.object({
  meetingId: z.string().regex(MEETING_ID),
  status: z.literal('joining'),
  platform,
  project: z.string(),
  documentPath: z.string().nullable(),
});

const meetingIdField = z
  .string({ error: 'meetingId is required and must be a string' })
  .min(1, 'meetingId is required')
  .describe('The meeting id returned by start_meeting, like meeting_1700000000000_AbCdEf1234.');

export const stopMeetingRequest = z.strictObject({ meetingId: meetingIdField });
/** A meeting named in the path (REST) or in the arguments (MCP): transcript, document. */
export const meetingRefRequest = z.strictObject({ meetingId: meetingIdField });
export const stopMeetingResponse = z.object({ meetingId: z.string(), status: z.literal('stopping') });

export const meetingSummary = z.object({
  meetingId: z.string(),
  status: meetingStatus,
  platform,
  title: z.string().nullable(),
  startedAt: isoTimestamp,
  participantCount: z.number().int(),
  segmentCount: z.number().int(),
  project: z.string(),
  documentPath: z.string().nullable(),
  /**
   * Why a live meeting may be transcribing nothing (an addition to SPEC 2.1): `captions_unreadable`
   * (the captions change but no text can be read: the platform changed its page) and
   * `captions_unavailable` (captions cannot be turned on). Empty when all is well.
   */
  warnings: z.array(captionWarning),
  /** The bot account the bot joined with (its name), or null for a guest. */
  signedInAs: z.string().nullable(),
  /** The caption language asked for, or null for the platform's default. */
  language: z.string().nullable(),
});
export type MeetingSummary = z.infer<typeof meetingSummary>;
export const meetingStatusResponse = z.object({ meetings: z.array(meetingSummary) });

// ---- Transcripts (SPEC 2.2)

export const transcriptSegment = z.object({
  speaker: z.string(),
  text: z.string(),
  timestamp: isoTimestamp,
});
export type TranscriptSegment = z.infer<typeof transcriptSegment>;

/** `after`: read incrementally; only the segments after this index (the first segment is 0) come back. */
export const transcriptQuery = z.strictObject({
  after: z.coerce
    .number({ error: 'after must be a number' })
    .int('after must be an integer')
    .min(0, 'after must not be negative')
    .optional()
    .describe(
      'Index of the last segment already read (the first segment is 0): only later segments are returned. Omit to read them all.',
    ),
});
export const transcriptRequest = meetingRefRequest.extend(transcriptQuery.shape);

export const transcriptResponse = z.object({
  meetingId: z.string(),
  status: meetingStatus,
  project: z.string(),
  documentPath: z.string().nullable(),
  signedInAs: z.string().nullable(),
  language: z.string().nullable(),
  segments: z.array(transcriptSegment),
});

// ---- Meeting events: catch-up by sequence

export const MAX_EVENTS_LIMIT = 1000;
const EVENT_TYPES_MESSAGE = `types must be a comma-separated list of event types (${EVENT_TYPES.join(', ')})`;
const isEventType = (name: string): name is EventType => (EVENT_TYPES as readonly string[]).includes(name);

/** `types=a,b`: the event types to keep; an unknown or empty name is a 400 naming the field. */
const eventTypeList = z.string({ error: EVENT_TYPES_MESSAGE }).transform((text, ctx) => {
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !isEventType(name));
  if (unknown !== undefined) {
    ctx.addIssue({ code: 'custom', message: `${EVENT_TYPES_MESSAGE}: "${unknown}" is not one` });
    return z.NEVER;
  }
  return [...new Set(names.filter(isEventType))];
});

export const eventsQuery = z.strictObject({
  after: z.coerce
    .number({ error: 'after must be a number' })
    .int('after must be an integer')
    .min(0, 'after must not be negative')
    .default(0)
    .describe(
      'Sequence of the last event already read (0, the default: from the first event). Pass the nextAfter of the previous answer.',
    ),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_EVENTS_LIMIT, `limit must be at most ${MAX_EVENTS_LIMIT}`)
    .default(100)
    .describe(`How many events to return at most (default 100, at most ${MAX_EVENTS_LIMIT}).`),
  types: eventTypeList
    .optional()
    .describe(
      `Only events of these types, comma-separated (${EVENT_TYPES.join(', ')}). Omit for every type, caption_partial included.`,
    ),
});
export const eventsRequest = meetingRefRequest.extend(eventsQuery.shape);

export const eventsResponse = z.object({
  meetingId: z.string(),
  events: z
    .array(eventEnvelope)
    .describe(
      'In sequence order, each exactly the envelope its callback carried (type, meetingId, sequence, timestamp, payload).',
    ),
  nextAfter: z
    .number()
    .int()
    .min(0)
    .describe('The `after` of the next request: the last sequence looked at (with `types`, skipped events count too).'),
  ended: z
    .boolean()
    .describe('The meeting is over (ended or error): once a page comes back empty, every event has been read.'),
});

// ---- A meeting's callback delivery log (webhook-emitter)

/** Deliveries per page: the REST query's bounds and the bus request's (messages.ts). */
export const MAX_DELIVERIES_LIMIT = 1000;
export const DEFAULT_DELIVERIES_LIMIT = 500;

export const deliveriesQuery = z.strictObject({
  afterSequence: z.coerce
    .number({ error: 'afterSequence must be a number' })
    .int('afterSequence must be an integer')
    .min(0, 'afterSequence must not be negative')
    .default(0)
    .describe('Sequence of the last event already read (default 0): pass the nextAfterSequence of the previous page.'),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_DELIVERIES_LIMIT, `limit must be at most ${MAX_DELIVERIES_LIMIT}`)
    .default(DEFAULT_DELIVERIES_LIMIT)
    .describe(`How many events to return at most (default ${DEFAULT_DELIVERIES_LIMIT}, at most ${MAX_DELIVERIES_LIMIT}).`),
});
export const deliveriesRequest = meetingRefRequest.extend(deliveriesQuery.shape);

// ---- Projects (SPEC 2.3, 2.4, 4.2)

export const project = z.object({ id: z.string(), name: z.string(), hasMeetings: z.boolean() });
export type Project = z.infer<typeof project>;
export const projectsResponse = z.object({ projects: z.array(project) });

export const savedTranscriptStatus = z.enum(['in_progress', 'completed']);
export const projectMeeting = z.object({
  filename: z.string(),
  title: z.string(),
  date: z.string(),
  meetingId: z.string(),
  status: savedTranscriptStatus,
  participants: z.array(z.string()),
});
export type ProjectMeeting = z.infer<typeof projectMeeting>;
export const projectMeetingsResponse = z.object({ project: z.string(), meetings: z.array(projectMeeting) });
export const projectMeetingsParams = z.strictObject({
  projectId: z
    .string({ error: 'projectId is required and must be a string' })
    .regex(PROJECT_ID, 'projectId must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$')
    .describe('A project id, as list_projects returns it.'),
});

// ---- Tasks (SPEC 2.5, 2.6, 4.3)

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
/** Exactly the 5 fields of SPEC 2.5 (minute hour day-of-month month day-of-week); no @presets, no seconds. */
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
  offset: z.coerce
    .number({ error: 'offset must be a number' })
    .int('offset must be an integer')
    .min(0, 'offset must not be negative')
    .default(0)
    .describe('How many of the newest executions to skip (default 0).'),
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

// ---- Errors (SPEC 7)

export const errorBody = z.object({ error: z.string() });

/**
 * Outside input (a REST body, a query, a bus request) parsed by its contract schema; a failure is
 * a 400 whose message names the field, and which carries it (`field`) for a form to show it there.
 */
export function parseOrBadRequest<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const top = result.error.issues[0]?.path[0];
  throw errors.badRequest(firstIssueMessage(result.error), typeof top === 'string' ? top : undefined);
}

/** The first issue's message is the answer: it names the field that is wrong. */
export function firstIssueMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${issue.keys.join(', ')}`;
  const field = issue.path.join('.');
  if (issue.message.startsWith('Invalid input') && field) return `${field} is invalid`;
  return issue.message;
}
