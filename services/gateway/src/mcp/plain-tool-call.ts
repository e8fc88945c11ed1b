/**
 * Which MCP requests are plain tool calls, answered on the SDK's long-lived connections
 * (tool-call-lines.ts) instead of its HTTP entries. Only the choice of the route is ours; the
 * answer (its validation, dispatch, result encoding and bytes) is the SDK's.
 *
 * The plain case, either era: one JSON-RPC request naming one of our tools with object arguments,
 * JSON Content-Type. 2026-07-28: the standard headers present and naming the body's method and
 * tool, classified modern by the SDK's `classifyInboundRequest`, no `_meta` beyond the envelope.
 * 2025 (on an open session of the caller's key): the Accept and MCP-Protocol-Version headers its
 * transport accepts, no `_meta`, classified legacy. Anything else (the SDK's refusals, unknown
 * tools, progress tokens, tasks, batches, listen) is left to the SDK's handler or the session's
 * transport. test/mcp/plain-tool-call.spec.ts compares both routes' answers byte for byte.
 *
 * The era is the one the SDK's `classifyInboundRequest` gives. For a body of the plain shape it
 * depends on the headers and the envelope (`_meta`) alone, the rest being a valid JSON-RPC request
 * whatever the tool and arguments; a client sends the same headers and envelope on every call, so
 * each distinct pair is classified once and remembered (the SDK's check of a whole body cost a
 * plain call about 7% of its server time, test/bench/mcp.bench.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCRequest,
} from '@modelcontextprotocol/server';
import { OPERATIONS } from '../operations/index.js';
import { MODERN_REVISION } from './server.js';

export type Era = 'modern' | 'legacy';

/** A plain tools/call, the era it was classified in and the revision it names. */
export interface PlainToolCall {
  message: JSONRPCRequest;
  era: Era;
  revision: string;
}

/** The 2025 revisions a session's tools/call is taken this way under (others go to its transport). */
const SESSION_REVISIONS = new Set(['2025-11-25', '2025-06-18'].filter((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v)));
const TOOL_NAMES = new Set(OPERATIONS.map((op) => op.name));
/** The keys a plain tools/call's params may have: 2026-07-28 allows an envelope `_meta`, 2025 none. */
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const SESSION_PARAM_KEYS = new Set(['name', 'arguments']);
const BODY_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

type Json = Record<string, unknown>;
type ToolParams = { name: string; arguments: Json; _meta?: unknown };
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const onlyKeys = (value: Json, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));

/** HTTP optional whitespace stripped, as the SDK reads the standard headers. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.replace(/^[ \t]+|[ \t]+$/g, '') : undefined;
}

/** The tool's params when `body` is a JSON-RPC tools/call of one of our tools with object arguments and `allowedKeys` only. */
function toolParams(body: Json, allowedKeys: ReadonlySet<string>): ToolParams | undefined {
  if (body.jsonrpc !== '2.0' || !onlyKeys(body, BODY_KEYS)) return undefined;
  // The SDK's request id: a string or an integer its schema accepts (a safe one).
  if (typeof body.id !== 'string' && !Number.isSafeInteger(body.id)) return undefined;
  const params = body.params;
  if (body.method !== 'tools/call' || !isObject(params) || !onlyKeys(params, allowedKeys)) return undefined;
  if (typeof params.name !== 'string' || !TOOL_NAMES.has(params.name) || !isObject(params.arguments)) return undefined;
  return params as ToolParams;
}

/** The 2026-07-28 plain tools/call in this POST (body parsed), or undefined for anything else. */
export function plainToolCall(headers: IncomingHttpHeaders, body: unknown): PlainToolCall | undefined {
  if (!isObject(body) || !isJsonContentType(headers['content-type'])) return undefined;
  const params = toolParams(body, PARAM_KEYS);
  if (!params) return undefined;
  const meta = params._meta;
  if (meta !== undefined && !(isObject(meta) && onlyKeys(meta, ENVELOPE_KEYS))) return undefined;
  const protocolVersionHeader = header(headers, 'mcp-protocol-version');
  const mcpMethodHeader = header(headers, 'mcp-method');
  const mcpNameHeader = header(headers, 'mcp-name');
  if (protocolVersionHeader !== MODERN_REVISION || mcpMethodHeader !== 'tools/call' || mcpNameHeader !== params.name)
    return undefined;
  const era = sdkEra({ protocolVersionHeader, mcpMethodHeader, mcpNameHeader }, params.name, meta);
  if (era?.era !== 'modern' || era.revision !== MODERN_REVISION) return undefined;
  return { message: body as unknown as JSONRPCRequest, era: 'modern', revision: MODERN_REVISION };
}

/** The plain tools/call in this POST to an open 2025-era session, or undefined for anything else. */
export function plainSessionToolCall(headers: IncomingHttpHeaders, body: unknown): PlainToolCall | undefined {
  if (!isObject(body)) return undefined;
  const params = toolParams(body, SESSION_PARAM_KEYS);
  if (!params) return undefined;
  const accept = headers.accept;
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream'))
    return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const version = headers['mcp-protocol-version'];
  if (typeof version !== 'string' || !SESSION_REVISIONS.has(version)) return undefined;
  // The era as the SDK decides it (no envelope claim, a 2025 header: the session's, not modern).
  if (sdkEra({ protocolVersionHeader: version }, params.name, undefined)?.era !== 'legacy') return undefined;
  return { message: body as unknown as JSONRPCRequest, era: 'legacy', revision: version };
}

interface ClassifiedHeaders {
  protocolVersionHeader: string;
  mcpMethodHeader?: string;
  mcpNameHeader?: string;
}

/** What the SDK's classification says of a plain tools/call: its era and revision, or nothing (a refusal). */
type SdkEra = { era: Era; revision?: string } | undefined;

/** Classifications remembered, the oldest dropped past the bound; an envelope longer than a client's is not kept. */
const classified = new Map<string, SdkEra>();
const MAX_CLASSIFIED = 256;
const MAX_REMEMBERED_KEY = 2048;

/**
 * The SDK's classification of a tools/call of tool `name` whose body passed `toolParams`, with these
 * headers and envelope: asked of a body with empty arguments and a fixed id (the SDK's request
 * schema takes any arguments, and any id `toolParams` lets through, alike).
 */
function sdkEra(headers: ClassifiedHeaders, name: string, meta: unknown): SdkEra {
  const { protocolVersionHeader, mcpMethodHeader = '', mcpNameHeader = '' } = headers;
  const envelope = meta === undefined ? '' : JSON.stringify(meta);
  const key = `${protocolVersionHeader}\n${mcpMethodHeader}\n${mcpNameHeader}\n${name}\n${envelope}`;
  if (classified.has(key)) return classified.get(key);
  const params = { name, arguments: {}, ...(meta !== undefined && { _meta: meta }) };
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    ...headers,
    body: { jsonrpc: '2.0', id: 0, method: 'tools/call', params },
  });
  let era: SdkEra;
  if (route.kind === 'legacy') era = { era: 'legacy' };
  else if (route.kind === 'modern' && route.messageKind === 'request')
    era = { era: 'modern', revision: route.classification.revision };
  if (key.length <= MAX_REMEMBERED_KEY) {
    if (classified.size >= MAX_CLASSIFIED) classified.delete(classified.keys().next().value!);
    classified.set(key, era);
  }
  return era;
}
