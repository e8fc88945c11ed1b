/**
 * The tools a skill's agent may call. Each reaches another service over the bus (or, for the
 * write, the project's folder); whatever goes wrong (bad arguments, a service that does not
 * answer, a 404) comes back to the model as an `Error: ...` string, never as a failed run.
 * Every call races the execution's AbortSignal, so a timeout does not wait for a slow service.
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { call, type Bus } from '@notetaker/bus';
import {
  PROJECT_ID,
  routes,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  type ReplyOf,
  type RequestOf,
  type Route,
} from '@notetaker/contracts';
import { raceAbort } from '../abort.js';
import { ToolInputError, writeProjectDocument } from './project-files.js';

/** Longest tool answer handed to the model; longer ones are cut with a note saying how to go on. */
export const MAX_TOOL_RESULT_CHARS = 40_000;
const BUS_TIMEOUT_MS = 10_000;

const projectIdArg = z.string().regex(PROJECT_ID, 'projectId must be a project id');
const argSchemas = {
  list_projects: z.object({}),
  list_project_meetings: z.object({ projectId: projectIdArg }),
  read_transcript: z.object({ meetingId: z.string().min(1).max(100), fromIndex: z.number().int().min(0).optional() }),
  search_transcripts: z.object({
    query: z.string().min(1).max(SEARCH_MAX_QUERY_LENGTH),
    projectId: projectIdArg.optional(),
    limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).optional(),
  }),
  read_document: z.object({ meetingId: z.string().min(1).max(100), offset: z.number().int().min(0).optional() }),
  write_project_document: z.object({ projectId: projectIdArg, path: z.string().min(4).max(300), content: z.string() }),
};
export type ToolName = keyof typeof argSchemas;
type ToolArgs = { [K in ToolName]: z.infer<(typeof argSchemas)[K]> };
type SegmentsPage = ReplyOf<typeof routes.transcripts.segments>;

const fn = (name: ToolName, description: string, properties: Record<string, unknown>, required: string[] = []) =>
  ({
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
  }) satisfies ChatCompletionFunctionTool;

export const TOOL_DEFINITIONS: ChatCompletionFunctionTool[] = [
  fn('list_projects', 'List every project: id, name, and whether it has saved meetings.', {}),
  fn(
    'list_project_meetings',
    "List a project's saved meetings, newest first: filename, title, date (ISO 8601), meetingId, status, participants.",
    { projectId: { type: 'string' } },
    ['projectId'],
  ),
  fn(
    'read_transcript',
    'Read the transcript of a meeting as lines "[timestamp] speaker: text". Long transcripts come in parts: call again with the fromIndex it gives.',
    { meetingId: { type: 'string' }, fromIndex: { type: 'integer', minimum: 0 } },
    ['meetingId'],
  ),
  fn(
    'search_transcripts',
    'Full-text search over saved transcripts, best matches first, optionally within one project.',
    { query: { type: 'string' }, projectId: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
    ['query'],
  ),
  fn(
    'read_document',
    "Read a meeting's saved markdown document. Long documents come in parts: call again with the offset it gives.",
    { meetingId: { type: 'string' }, offset: { type: 'integer', minimum: 0 } },
    ['meetingId'],
  ),
  fn(
    'write_project_document',
    'Write (create or replace) a markdown document inside an existing project, e.g. path "digests/2025-01-31 daily digest.md". Folders other than meetings/ are allowed, up to 3 deep.',
    { projectId: { type: 'string' }, path: { type: 'string' }, content: { type: 'string' } },
    ['projectId', 'path', 'content'],
  ),
];

function cut(text: string, more: string): string {
  if (text.length <= MAX_TOOL_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[cut at ${MAX_TOOL_RESULT_CHARS} characters${more}]`;
}

export interface ToolContext {
  bus: Bus;
  contentRoot: string;
  signal: AbortSignal;
}

export class AgentTools {
  constructor(private readonly ctx: ToolContext) {}

  /** Runs one tool call; the answer is always a string for the model. Rejects only on abort. */
  async call(name: string, rawArguments: string): Promise<string> {
    if (!(name in argSchemas)) return `Error: unknown tool ${name}`;
    let args: unknown;
    try {
      args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
    } catch {
      return 'Error: the arguments are not valid JSON';
    }
    const parsed = argSchemas[name as ToolName].safeParse(args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `Error: invalid arguments: ${issue.path.join('.') || '(arguments)'}: ${issue.message}`;
    }
    try {
      return await raceAbort(this.run(name as ToolName, parsed.data), this.ctx.signal);
    } catch (err) {
      if (this.ctx.signal.aborted) throw this.ctx.signal.reason;
      return `Error: ${(err as Error).message || 'the tool failed'}`;
    }
  }

  private request<R extends Route>(route: R, data: RequestOf<R>): Promise<ReplyOf<R>> {
    return call(this.ctx.bus, route, data, { timeoutMs: BUS_TIMEOUT_MS });
  }

  private run<K extends ToolName>(name: K, args: ToolArgs[K]): Promise<string> {
    return (this.tools[name] as (args: ToolArgs[K]) => Promise<string>)(args);
  }

  private readonly tools: { [K in ToolName]: (args: ToolArgs[K]) => Promise<string> } = {
    list_projects: async () => cut(JSON.stringify(await this.request(routes.projects.list, {})), ''),
    list_project_meetings: async ({ projectId }) =>
      cut(JSON.stringify(await this.request(routes.projects.meetings, { projectId })), ''),
    read_transcript: ({ meetingId, fromIndex }) => this.readTranscript(meetingId, fromIndex ?? 0),
    search_transcripts: async ({ query, projectId, limit }) => {
      const request = { q: query, ...(projectId ? { project: projectId } : {}), limit: limit ?? 20 };
      return cut(JSON.stringify(await this.request(routes.transcripts.search, request)), '');
    },
    read_document: ({ meetingId, offset }) => this.readDocument(meetingId, offset ?? 0),
    write_project_document: ({ projectId, path, content }) => this.write(projectId, path, content),
  };

  /** Follows the store's pages until the answer is big enough for one tool result. */
  private async readTranscript(meetingId: string, fromIndex: number): Promise<string> {
    const lines: string[] = [];
    let length = 0;
    let next: number | null = fromIndex;
    while (next !== null && length < MAX_TOOL_RESULT_CHARS) {
      const page: SegmentsPage = await this.request(routes.transcripts.segments, { meetingId, fromIndex: next });
      let index = next;
      for (const s of page.segments) {
        const line = `[${s.timestamp}] ${s.speaker}: ${s.text}`;
        if (length + line.length > MAX_TOOL_RESULT_CHARS && lines.length > 0) {
          return `${lines.join('\n')}\n[more: call read_transcript with fromIndex ${index}]`;
        }
        lines.push(line);
        length += line.length + 1;
        index++;
      }
      next = page.nextIndex;
    }
    if (lines.length === 0) return '(no segments)';
    return next === null
      ? lines.join('\n')
      : `${lines.join('\n')}\n[more: call read_transcript with fromIndex ${next}]`;
  }

  private async readDocument(meetingId: string, offset: number): Promise<string> {
    const page = await this.request(routes.transcripts.document, { meetingId, offset });
    const text = page.content.slice(0, MAX_TOOL_RESULT_CHARS);
    const nextOffset = text.length < page.content.length ? offset + text.length : page.nextOffset;
    const more = nextOffset === null ? '' : `\n[more: call read_document with offset ${nextOffset}]`;
    return `${page.documentPath}\n\n${text}${more}`;
  }

  private async write(projectId: string, relative: string, content: string): Promise<string> {
    if (this.ctx.signal.aborted) throw this.ctx.signal.reason;
    try {
      const written = await writeProjectDocument(this.ctx.contentRoot, projectId, relative, content);
      return `Wrote ${written} (${Buffer.byteLength(content)} bytes)`;
    } catch (err) {
      if (err instanceof ToolInputError) return `Error: ${err.message}`;
      throw err;
    }
  }
}
