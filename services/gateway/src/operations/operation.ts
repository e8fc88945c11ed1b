/**
 * One capability of the API, declared once (in the manner of Moleculer's actions): its name, the
 * schema its input is validated with, the schema of what it answers, the token capability it needs
 * (if any), how REST serves it, how MCP offers it as a tool, and the handler that answers it over
 * the bus.
 * The list of them (index.ts) is the only place an interface changes: the Koa routes
 * (http/rest-routes.ts), the OpenAPI paths (openapi/document.ts) and the MCP tools (mcp/tools.ts)
 * are generated from it, so the three cannot drift apart.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Bus } from '@notetaker/bus';
import type { Caller, Capability } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';

export type Method = 'get' | 'post' | 'put' | 'delete';
export type Tag = 'meetings' | 'projects' | 'search' | 'tasks' | 'meta';

export interface RestBinding {
  method: Method;
  /** Koa's spelling, relative to /api/v1: `/tasks/:name`. Path parameters are input fields. */
  path: string;
  /** The success status: 200, 201 (created), 202 (accepted, goes on after the answer). */
  status: 200 | 201 | 202;
  /**
   * The other input fields come from the query (get, delete) or the JSON body (post, put). `body`
   * instead puts the whole body under one input field, checked by its own schema first (so a path
   * parameter's name in the body is an unknown field, not the path's).
   */
  body?: { field: string; schema: z.ZodType };
  /** The answer is `output.content` as a text/markdown download named `output.filename`. */
  markdown?: true;
  tag: Tag;
  /** The OpenAPI summary, and its success response's description. */
  summary: string;
  description: string;
  /** Error statuses besides 401 (every route) and 400 (every route with input), as OpenAPI states them. */
  errors?: Partial<Record<403 | 404 | 409 | 413 | 503, string>>;
}

export interface ToolBinding<O extends z.ZodType> {
  title: string;
  description: string;
  /** readOnly, destructive, idempotent, openWorld hints. */
  annotations: ToolAnnotations;
  /** The short text a client without structuredContent support shows. */
  text(output: z.infer<O>): string;
}

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** The MCP tool's name too: `start_meeting`. */
  name: string;
  /** The arguments, as one object (REST gathers them from the path, the query or the body). */
  input: I;
  /** The REST response body; an MCP tool's structuredContent. */
  output: O;
  /**
   * The token capability its handler's bus call requires, when it requires one: informational (the
   * OpenAPI test expects its 403 documented). The check is made where the data lives (meeting-session
   * refuses saveTranscript without knowledge:write), so the web and every interface share it.
   */
  needs?: Capability;
  rest: RestBinding;
  tool: ToolBinding<O>;
  // Method syntax on purpose: the list holds operations of different types, and a method's
  // parameter is checked bivariantly, so `Operation<Specific>` is an `Operation` without a cast.
  handler(bus: Bus, caller: Caller, input: z.infer<I>, request: RequestContext): Promise<z.infer<O>>;
}

/** What a handler may need of the request beyond its caller and input (REST's and MCP's alike). */
export interface RequestContext {
  /** What an absolute link in the answer starts with: PUBLIC_URL, else the request's origin (http/public-url.ts). */
  baseUrl: string;
}

/**
 * Declares an operation: the identity, so TypeScript infers the handler's `input` and the tool
 * text's `output` from the two schemas instead of each entry restating their types.
 */
export function defineOperation<I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

/** Validates raw arguments with the operation's schema (a 400 naming the field), then handles them. */
export function perform<I extends z.ZodType, O extends z.ZodType>(
  op: Operation<I, O>,
  bus: Bus,
  caller: Caller,
  raw: unknown,
  request: RequestContext,
): Promise<z.infer<O>> {
  return op.handler(bus, caller, parseInput(op.input, raw), request);
}

/** Tool annotations most entries share. */
export const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

/** Pieces of the tools' texts: `2 things`, and `n things: a, b` (no list when there are none). */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const listed = (n: number, one: string, items: string[]) =>
  `${count(n, one)}${items.length ? `: ${items.join(', ')}` : ''}`;

/** The 404 every meeting-owned route documents. */
export const NOT_OWNED = 'Not found: no such meeting, or another key’s';
