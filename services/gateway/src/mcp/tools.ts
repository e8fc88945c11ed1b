/**
 * The MCP tools: one per REST capability, each an Operation (the schema REST validates with, the
 * body REST answers). A failure is a tool result with isError and REST's own message; unknown
 * tools and malformed requests stay JSON-RPC errors (the SDK answers those).
 */
import crypto from 'node:crypto';
import type { CallToolResult, McpServer, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
import { publicError } from '../http/errors.js';
import { getEvents } from '../operations/events.js';
import { listMeetings, startMeeting, stopMeeting } from '../operations/meetings.js';
import { perform, type Operation } from '../operations/operation.js';
import { listProjectMeetings, listProjects } from '../operations/projects.js';
import * as tasks from '../operations/tasks.js';
import { getDocument, getTranscript, searchTranscripts } from '../operations/transcripts.js';
import { callerOf } from './caller.js';

interface ToolSpec<O extends Operation = Operation> {
  name: string;
  title: string;
  description: string;
  op: O;
  annotations: ToolAnnotations;
  /** The short text a client without structuredContent support shows. */
  summary(body: z.infer<O['output']>): string;
}

const tool = <O extends Operation>(spec: ToolSpec<O>) => spec as unknown as ToolSpec;

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** `n things: a, b` (no list when there are none). */
const listed = (n: number, one: string, items: string[]) =>
  `${count(n, one)}${items.length ? `: ${items.join(', ')}` : ''}`;

export const TOOLS: ToolSpec[] = [
  tool({
    name: 'start_meeting',
    title: 'Start transcribing a meeting',
    description:
      'Sends the notetaker bot into a Google Meet or Teams meeting to transcribe it. Returns the meetingId; ' +
      'follow it with get_transcript or by subscribing to notetaker://meetings/{meetingId}/transcript.',
    op: startMeeting,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    summary: (b) => `Meeting ${b.meetingId} is ${b.status} on ${b.platform} (project ${b.project}).`,
  }),
  tool({
    name: 'stop_meeting',
    title: 'Stop transcribing a meeting',
    description: 'Makes the bot leave a live meeting this API key started; the transcript stays readable.',
    op: stopMeeting,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    summary: (b) => `Meeting ${b.meetingId} is ${b.status}.`,
  }),
  tool({
    name: 'list_meetings',
    title: 'List live meetings',
    description: 'The meetings this API key started that are being transcribed now.',
    op: listMeetings,
    annotations: READ,
    summary: (b) =>
      `${count(b.meetings.length, 'live meeting')}${b.meetings.map((m) => `\n- ${m.meetingId} ${m.status} "${m.title ?? ''}"`).join('')}`,
  }),
  tool({
    name: 'get_transcript',
    title: 'Read a meeting transcript',
    description:
      'The finalized segments of a meeting this API key started, live or ended. Pass `after` (the index of ' +
      'the last segment already read) to get only the newer ones.',
    op: getTranscript,
    annotations: READ,
    summary: (b) =>
      `Meeting ${b.meetingId} (${b.status}): ${count(b.segments.length, 'segment')}` +
      b.segments.map((s) => `\n${s.speaker}: ${s.text}`).join(''),
  }),
  tool({
    name: 'get_events',
    title: "Read a meeting's events",
    description:
      'The events of a meeting this API key started, in sequence order, each exactly as its callback carried ' +
      'it: statuses, captions in progress, finalized segments, participants, coaching, the saved document. ' +
      'Pass the nextAfter of one answer as `after` to read on; once a page is empty and `ended` is true, ' +
      'every event has been read.',
    op: getEvents,
    annotations: READ,
    summary: (b) =>
      `Meeting ${b.meetingId}: ${count(b.events.length, 'event')}, nextAfter ${b.nextAfter}` +
      `${b.ended ? ', the meeting has ended' : ''}` +
      b.events.map((e) => `\n#${e.sequence} ${e.type}`).join(''),
  }),
  tool({
    name: 'get_document',
    title: 'Read a saved transcript document',
    description: 'The markdown document saved for a meeting this API key started (when saveTranscript was on).',
    op: getDocument,
    annotations: READ,
    summary: (b) => b.content,
  }),
  tool({
    name: 'list_projects',
    title: 'List projects',
    description: 'Every project of the instance; saved transcripts live in a project.',
    op: listProjects,
    annotations: READ,
    summary: (b) =>
      listed(
        b.projects.length,
        'project',
        b.projects.map((p) => p.id),
      ),
  }),
  tool({
    name: 'list_project_meetings',
    title: 'List the saved meetings of a project',
    description: 'The saved transcripts of one project, newest first.',
    op: listProjectMeetings,
    annotations: READ,
    summary: (b) =>
      `${count(b.meetings.length, 'saved meeting')} in ${b.project}` +
      b.meetings.map((m) => `\n- ${m.date} ${m.title} (${m.status})`).join(''),
  }),
  tool({
    name: 'search_transcripts',
    title: 'Search saved transcripts',
    description: 'Full-text search over the saved transcripts of the instance, best matches first.',
    op: searchTranscripts,
    annotations: READ,
    summary: (b) =>
      `${count(b.results.length, 'result')}` +
      b.results.map((r) => `\n- ${r.title}, ${r.speaker}: ${r.snippet}`).join(''),
  }),
  tool({
    name: 'list_tasks',
    title: 'List tasks',
    description: 'The AI tasks of the instance (a task runs a skill on demand or on a cron schedule).',
    op: tasks.listTasks,
    annotations: READ,
    summary: (b) =>
      listed(
        b.tasks.length,
        'task',
        b.tasks.map((t) => t.name),
      ),
  }),
  tool({
    name: 'get_task',
    title: 'Read a task',
    description: 'A task and its 10 most recent executions.',
    op: tasks.getTask,
    annotations: READ,
    summary: (b) => `Task ${b.task.name} runs ${b.task.skillName}; last status ${b.task.lastStatus ?? 'never run'}.`,
  }),
  tool({
    name: 'create_task',
    title: 'Create a task',
    description: 'Creates a task that runs a skill, on demand or on a cron schedule.',
    op: tasks.createTask,
    annotations: WRITE,
    summary: (b) => `Created task ${b.task.name}; next run ${b.task.nextRunAt ?? 'on demand'}.`,
  }),
  tool({
    name: 'update_task',
    title: 'Change a task',
    description: 'Changes the given fields of a task; the others keep their value.',
    op: tasks.updateTask,
    annotations: { ...WRITE, idempotentHint: true },
    summary: (b) => `Updated task ${b.task.name}; next run ${b.task.nextRunAt ?? 'on demand'}.`,
  }),
  tool({
    name: 'delete_task',
    title: 'Delete a task',
    description: 'Deletes a task and its schedule; a run in progress is cancelled.',
    op: tasks.deleteTask,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    summary: (b) => b.message,
  }),
  tool({
    name: 'run_task',
    title: 'Run a task now',
    description: 'Starts a run of the task now, scheduled or not; read the outcome with get_task_history.',
    op: tasks.runTask,
    annotations: WRITE,
    summary: (b) => b.message,
  }),
  tool({
    name: 'enable_task',
    title: 'Resume a task schedule',
    description: 'Turns the cron schedule of a scheduled task on.',
    op: tasks.enableTask,
    annotations: { ...WRITE, idempotentHint: true },
    summary: (b) => `Task ${b.task.name} enabled; next run ${b.task.nextRunAt ?? 'none'}.`,
  }),
  tool({
    name: 'disable_task',
    title: 'Pause a task schedule',
    description: 'Pauses the cron schedule of a scheduled task (the schedule is kept; manual runs still work).',
    op: tasks.disableTask,
    annotations: { ...WRITE, idempotentHint: true },
    summary: (b) => `Task ${b.task.name} disabled.`,
  }),
  tool({
    name: 'get_task_history',
    title: 'Read the runs of a task',
    description: 'The executions of a task, newest first, with their result summaries.',
    op: tasks.getTaskHistory,
    annotations: READ,
    summary: (b) =>
      `${count(b.executions.length, 'execution')}` +
      b.executions
        .map((e) => `\n- ${e.startedAt} ${e.status}${e.resultSummary ? `: ${e.resultSummary}` : ''}`)
        .join(''),
  }),
];

/**
 * The tool's JSON Schema is the REST schema's own, and arguments are handed to the operation as
 * they came: `perform` validates them with that schema, so a bad field gets REST's message word for
 * word (the SDK's validation would reword it).
 */
export function validatedByOperation(schema: z.ZodType): StandardSchemaWithJSON {
  return withJsonSchemaOnce(schema, (value) => ({ value }));
}

/** The output schema as it is, its JSON Schema converted once (a server is built per request). */
export function outputSchemaOf(schema: z.ZodType): StandardSchemaWithJSON {
  return withJsonSchemaOnce(schema, (value) => schema['~standard'].validate(value));
}

type Props = StandardSchemaWithJSON['~standard'];
type JsonOptions = Parameters<Props['jsonSchema']['input']>[0];
const converted = new WeakMap<z.ZodType, Map<string, Record<string, unknown>>>();

function withJsonSchemaOnce(schema: z.ZodType, validate: Props['validate']): StandardSchemaWithJSON {
  const standard = schema['~standard'] as unknown as Props;
  const once = (io: 'input' | 'output') => (options: JsonOptions) => {
    const key = `${io}:${options.target}`;
    let cache = converted.get(schema);
    if (!cache) converted.set(schema, (cache = new Map()));
    let json = cache.get(key);
    if (!json) cache.set(key, (json = standard.jsonSchema[io](options)));
    return json;
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'notetaker',
      validate,
      jsonSchema: { input: once('input'), output: once('output') },
    },
  };
}

export function registerTools(server: McpServer, bus: Bus, logger: Logger): void {
  for (const spec of TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: validatedByOperation(spec.op.input),
        outputSchema: outputSchemaOf(spec.op.output),
        annotations: { title: spec.title, ...spec.annotations },
      },
      async (args: unknown, ctx): Promise<CallToolResult> => {
        try {
          const body = (await perform(spec.op, bus, callerOf(ctx), args)) as Record<string, unknown>;
          return { content: [{ type: 'text', text: spec.summary(body) }], structuredContent: body };
        } catch (err) {
          return toolFailure(err, logger, spec.name);
        }
      },
    );
  }
}

function toolFailure(err: unknown, logger: Logger, toolName: string): CallToolResult {
  const { message } = publicError(err, crypto.randomUUID(), logger, { mcpTool: toolName });
  return { isError: true, content: [{ type: 'text', text: message }] };
}
