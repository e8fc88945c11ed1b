/**
 * MCP resources: the saved documents of the meetings a key started, as
 * notetaker://projects/{project}/meetings/{filename} (markdown), and the transcript of a meeting it
 * started as notetaker://meetings/{meetingId}/transcript (JSON, the get_transcript body). Reading
 * goes through the same operations as the tools and REST, so ownership is meeting-session's answer.
 */
import crypto from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
  UriTemplate,
  type ListResourcesResult,
  type McpServer,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { call, type Bus } from '@notetaker/bus';
import { routes, ServiceError, type Caller, type ProjectMeeting } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { publicError } from '../http/errors.js';
import { listMeetings } from '../operations/meetings.js';
import { perform, type RequestContext } from '../operations/operation.js';
import { getDocument, getTranscript, ownedMeeting } from '../operations/transcripts.js';
import { callerOf, requestOf } from './caller.js';

export const DOCUMENT_TEMPLATE = new UriTemplate('notetaker://projects/{project}/meetings/{filename}');
export const TRANSCRIPT_TEMPLATE = new UriTemplate('notetaker://meetings/{meetingId}/transcript');
/** Saved documents looked at per resources/list page (the page holds those the caller owns). */
export const DOCUMENTS_PER_PAGE = 50;

export const transcriptUri = (meetingId: string) => TRANSCRIPT_TEMPLATE.expand({ meetingId });
const documentUri = (project: string, filename: string) => DOCUMENT_TEMPLATE.expand({ project, filename });

export interface ResourceDeps {
  bus: Bus;
  logger: Logger;
}

export function registerResources(server: McpServer, deps: ResourceDeps): void {
  server.registerResource(
    'meeting-transcript',
    new ResourceTemplate(TRANSCRIPT_TEMPLATE, { list: undefined }),
    {
      title: 'Meeting transcript',
      description:
        'The finalized segments and the chat of a meeting this API key started, as the get_transcript tool answers them. ' +
        'Subscribe to it to hear of every new segment, every chat message and the meeting ending.',
      mimeType: 'application/json',
    },
    (uri, variables, ctx) =>
      readAs(deps, uri, async () => {
        const body = await perform(
          getTranscript,
          deps.bus,
          callerOf(ctx),
          { meetingId: one(variables.meetingId) },
          requestOf(ctx),
        );
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body) }] };
      }),
  );
  server.registerResource(
    'saved-document',
    new ResourceTemplate(DOCUMENT_TEMPLATE, { list: undefined }),
    {
      title: 'Saved transcript document',
      description: 'The markdown document saved in a project for a meeting this API key started.',
      mimeType: 'text/markdown',
    },
    (uri, variables, ctx) =>
      readAs(deps, uri, async () => {
        const project = one(variables.project);
        const entry = await documentEntry(deps.bus, project, one(variables.filename));
        const doc = await perform(getDocument, deps.bus, callerOf(ctx), { meetingId: entry.meetingId }, requestOf(ctx));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: doc.content }] };
      }),
  );
  // Replaces the SDK's unpaged list: one page of the caller's documents at a time.
  server.server.setRequestHandler('resources/list', (request, ctx) =>
    listResources(deps.bus, callerOf(ctx), requestOf(ctx), request.params?.cursor),
  );
}

/** A template variable as its decoded value (`{filename}` matches the percent-encoded name). */
function one(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value.join('/') : (value ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

async function documentEntry(bus: Bus, project: string, filename: string): Promise<ProjectMeeting> {
  const { meetings } = await call(bus, routes.projects.meetings, { projectId: project });
  const entry = meetings.find((m) => m.filename === filename);
  if (!entry) throw new ServiceError('not_found', 'Not found', 404);
  return entry;
}

/**
 * A read's failures in the protocol's terms: an unknown or foreign resource is the same
 * ResourceNotFound (as REST answers the same 404 for both), any other 4xx keeps its message.
 */
async function readAs(deps: ResourceDeps, uri: URL, read: () => Promise<ReadResourceResult>) {
  try {
    return await read();
  } catch (err) {
    throw protocolErrorOf(err, uri.href, deps.logger);
  }
}

export function protocolErrorOf(err: unknown, uri: string, logger: Logger): Error {
  const { status, message } = publicError(err, crypto.randomUUID(), logger, { mcpResource: uri });
  if (status === 404) return new ResourceNotFoundError(uri);
  if (status < 500) return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  return new ProtocolError(ProtocolErrorCode.InternalError, message);
}

const cursorSchema = z.object({ project: z.string(), index: z.number().int().min(0) });
type Cursor = z.infer<typeof cursorSchema>;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(cursor: string): Cursor {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  }
}

/**
 * The first page starts with the transcripts of the caller's live meetings; then, page by page,
 * the saved documents of the instance in project order, those of meetings the caller started.
 * Each page looks at DOCUMENTS_PER_PAGE documents at most, so a page is bounded work even when the
 * caller owns few of them (it may then hold fewer; nextCursor goes on).
 */
async function listResources(
  bus: Bus,
  caller: Caller,
  context: RequestContext,
  rawCursor: string | undefined,
): Promise<ListResourcesResult> {
  const cursor = rawCursor === undefined ? undefined : decodeCursor(rawCursor);
  const resources: Resource[] = cursor ? [] : await liveTranscripts(bus, caller, context);
  const { projects } = await call(bus, routes.projects.list, {});
  const withMeetings = projects
    .filter((p) => p.hasMeetings && (!cursor || p.id >= cursor.project))
    .sort((a, b) => (a.id < b.id ? -1 : 1));

  const seen: Array<{ project: string; entry: ProjectMeeting }> = [];
  let next: Cursor | undefined;
  for (const project of withMeetings) {
    const { meetings } = await call(bus, routes.projects.meetings, { projectId: project.id });
    const from = cursor && project.id === cursor.project ? cursor.index : 0;
    const room = DOCUMENTS_PER_PAGE - seen.length;
    for (const entry of meetings.slice(from, from + room)) seen.push({ project: project.id, entry });
    if (meetings.length - from > room) {
      next = { project: project.id, index: from + room };
      break;
    }
    if (seen.length === DOCUMENTS_PER_PAGE) {
      const after = withMeetings[withMeetings.indexOf(project) + 1];
      if (after) next = { project: after.id, index: 0 };
      break;
    }
  }

  const owned = await Promise.all(seen.map(({ entry }) => owns(bus, caller, entry.meetingId)));
  for (const [i, { project, entry }] of seen.entries()) {
    if (!owned[i]) continue;
    resources.push({
      uri: documentUri(project, entry.filename),
      name: entry.filename,
      title: entry.title,
      description: `Saved transcript (${entry.status}) of meeting ${entry.meetingId}, ${entry.date}`,
      mimeType: 'text/markdown',
    });
  }
  return next ? { resources, nextCursor: encodeCursor(next) } : { resources };
}

async function liveTranscripts(bus: Bus, caller: Caller, context: RequestContext): Promise<Resource[]> {
  const { meetings } = await listMeetings.handler(bus, caller, {}, context);
  return meetings.map((m) => ({
    uri: transcriptUri(m.meetingId),
    name: `${m.meetingId} transcript`,
    title: m.title ?? undefined,
    description: `Live transcript (${m.status}) of meeting ${m.meetingId}`,
    mimeType: 'application/json',
  }));
}

async function owns(bus: Bus, caller: Caller, meetingId: string): Promise<boolean> {
  try {
    await ownedMeeting(bus, caller, meetingId);
    return true;
  } catch (err) {
    if (err instanceof ServiceError && err.status === 404) return false;
    throw err;
  }
}

/**
 * Whether `uri` may be subscribed to by this caller: only the transcript of a meeting it started
 * (the same ResourceNotFound for an unknown and a foreign meeting). Throws the protocol error.
 */
export async function assertSubscribable(deps: ResourceDeps, caller: Caller, uri: string): Promise<void> {
  const match = TRANSCRIPT_TEMPLATE.match(uri);
  if (!match) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Only meeting transcripts (notetaker://meetings/{meetingId}/transcript) can be subscribed to',
    );
  }
  try {
    await ownedMeeting(deps.bus, caller, one(match.meetingId));
  } catch (err) {
    throw protocolErrorOf(err, uri, deps.logger);
  }
}
