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
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const onlyKeys = (value: Json, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));

/** HTTP optional whitespace stripped, as the SDK reads the standard headers. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.replace(/^[ \t]+|[ \t]+$/g, '') : undefined;
}

/** The tool's params when `body` is a tools/call of one of our tools with object arguments and `allowedKeys` only. */
function toolParams(body: Json, allowedKeys: ReadonlySet<string>): Json | undefined {
  const params = body.params;
  if (body.method !== 'tools/call' || !isObject(params) || !onlyKeys(params, allowedKeys)) return undefined;
  if (typeof params.name !== 'string' || !TOOL_NAMES.has(params.name) || !isObject(params.arguments)) return undefined;
  return params;
}

/** The 2026-07-28 plain tools/call in this POST (body parsed), or undefined for anything else. */
export function plainToolCall(headers: IncomingHttpHeaders, body: unknown): PlainToolCall | undefined {
  if (!isObject(body) || !isJsonContentType(headers['content-type'])) return undefined;
  const params = toolParams(body, PARAM_KEYS);
  if (!params) return undefined;
  if (params._meta !== undefined && !(isObject(params._meta) && onlyKeys(params._meta, ENVELOPE_KEYS)))
    return undefined;
  const protocolVersionHeader = header(headers, 'mcp-protocol-version');
  const mcpMethodHeader = header(headers, 'mcp-method');
  const mcpNameHeader = header(headers, 'mcp-name');
  if (protocolVersionHeader !== MODERN_REVISION || mcpMethodHeader !== 'tools/call' || mcpNameHeader !== params.name)
    return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader,
    mcpMethodHeader,
    mcpNameHeader,
    body,
  });
  if (route.kind !== 'modern' || route.messageKind !== 'request' || route.classification.revision !== MODERN_REVISION)
    return undefined;
  return { message: route.message, era: 'modern', revision: MODERN_REVISION };
}

/** The plain tools/call in this POST to an open 2025-era session, or undefined for anything else. */
export function plainSessionToolCall(headers: IncomingHttpHeaders, body: unknown): PlainToolCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || !onlyKeys(body, BODY_KEYS)) return undefined;
  if (typeof body.id !== 'string' && !Number.isSafeInteger(body.id)) return undefined;
  if (!toolParams(body, SESSION_PARAM_KEYS)) return undefined;
  const accept = headers.accept;
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream'))
    return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const version = headers['mcp-protocol-version'];
  if (typeof version !== 'string' || !SESSION_REVISIONS.has(version)) return undefined;
  // The era as the SDK decides it (no envelope claim, a 2025 header: the session's, not modern).
  const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, body });
  if (route.kind !== 'legacy') return undefined;
  return { message: body as unknown as JSONRPCRequest, era: 'legacy', revision: version };
}
