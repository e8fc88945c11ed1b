/**
 * The 2026-07-28 `tools/call` answered without the SDK's per-exchange machinery (web Request and
 * Response, a transport, the era decided twice, zod on every message): the request is classified
 * by the SDK's own `classifyInboundRequest`, then, only when it is the plain case the SDK would
 * serve with our tool handler (one request, the modern revision, its standard headers present and
 * naming the same method and tool as the body, an operation's tool, object arguments, no `_meta`
 * beyond the envelope), the same handler (`callTool`) answers it with the bytes the SDK would send.
 * Anything else (errors of the validation ladder, unknown tools, progress tokens, tasks, batches,
 * listen, 2025 sessions) returns undefined and goes to the SDK, which owns those answers.
 * test/mcp/direct.spec.ts compares the two paths byte for byte.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import { OPERATIONS } from '../operations/index.js';
import type { Operation } from '../operations/operation.js';
import { SERVER_INFO } from './server.js';

/** The one revision served here; a newer one the SDK may learn goes to the SDK. */
const REVISION = '2026-07-28';
const TOOLS = new Map<string, Operation>(OPERATIONS.map((op) => [op.name, op]));
/** The keys a plain tools/call's params may have: 2026-07-28 allows an envelope `_meta`, 2025 none. */
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const SESSION_PARAM_KEYS = new Set(['name', 'arguments']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

/** Switched off by a test to get the SDK's answer to the same request (the paths must not differ). */
export const directToolCalls = { enabled: true };

export interface DirectCall {
  id: string | number;
  op: Operation;
  args: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** HTTP optional whitespace stripped, as the SDK reads the standard headers. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.replace(/^[ \t]+|[ \t]+$/g, '') : undefined;
}

/**
 * The operation and params of a plain tools/call in either era: params an object of `allowedKeys`
 * only, naming an operation's tool, with object arguments; undefined for anything else.
 */
function plainToolParams(
  body: Json,
  allowedKeys: ReadonlySet<string>,
): { op: Operation; params: Json & { name: string; arguments: Json } } | undefined {
  const params = body.params;
  if (!isObject(params) || typeof params.name !== 'string' || !isObject(params.arguments)) return undefined;
  for (const key of Object.keys(params)) if (!allowedKeys.has(key)) return undefined;
  const op = TOOLS.get(params.name);
  if (!op) return undefined;
  return { op, params: params as Json & { name: string; arguments: Json } };
}

/** The call when this POST (body parsed, Content-Type checked) is one we answer directly. */
export function directToolCall(headers: IncomingHttpHeaders, body: unknown): DirectCall | undefined {
  if (!directToolCalls.enabled || !isObject(body) || body.method !== 'tools/call') return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const plain = plainToolParams(body, PARAM_KEYS);
  if (!plain) return undefined;
  const { op, params } = plain;
  if (params._meta !== undefined) {
    if (!isObject(params._meta)) return undefined;
    for (const key of Object.keys(params._meta)) if (!ENVELOPE_KEYS.has(key)) return undefined;
  }
  const protocolVersionHeader = header(headers, 'mcp-protocol-version');
  const mcpMethodHeader = header(headers, 'mcp-method');
  const mcpNameHeader = header(headers, 'mcp-name');
  if (protocolVersionHeader !== REVISION || mcpMethodHeader !== 'tools/call' || mcpNameHeader !== params.name)
    return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader,
    mcpMethodHeader,
    mcpNameHeader,
    body,
  });
  if (route.kind !== 'modern' || route.messageKind !== 'request' || route.classification.revision !== REVISION)
    return undefined;
  const id = body.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return { id, op, args: params.arguments };
}

/**
 * The JSON-RPC response the SDK writes for a tool's result on 2026-07-28: the result as its
 * CallToolResult schema orders it (content, structuredContent, isError), completed and signed with
 * the server's identity, then jsonrpc and id after it (status 200, application/json).
 */
export function toolCallResponse(id: string | number, result: CallToolResult): string {
  return jsonRpcResult(id, result, { resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } });
}

/** A tool's result in the field order the SDK writes, with what the revision adds after it. */
function jsonRpcResult(id: string | number, result: CallToolResult, added: Json = {}): string {
  const { content, structuredContent, isError } = result;
  return JSON.stringify({
    result: {
      content,
      ...(structuredContent !== undefined && { structuredContent }),
      ...(isError !== undefined && { isError }),
      ...added,
    },
    jsonrpc: '2.0',
    id,
  });
}

/** The 2025 revisions a session's tools/call is answered directly under (others go to the SDK). */
const SESSION_REVISIONS = new Set(['2025-11-25', '2025-06-18'].filter((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v)));

/**
 * The call when this POST to an open 2025-era session (found, the caller's) is the plain case its
 * SDK transport would hand our tool handler: Accept naming both JSON and event streams, JSON
 * Content-Type, an MCP-Protocol-Version header the transport accepts, one request, an operation's
 * tool, object arguments and no `_meta`. Anything else goes to the session's transport.
 */
export function directSessionToolCall(headers: IncomingHttpHeaders, body: unknown): DirectCall | undefined {
  if (!directToolCalls.enabled || !isObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0')
    return undefined;
  const accept = headers.accept;
  if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream'))
    return undefined;
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const version = headers['mcp-protocol-version'];
  if (typeof version !== 'string' || !SESSION_REVISIONS.has(version)) return undefined;
  const plain = plainToolParams(body, SESSION_PARAM_KEYS);
  if (!plain) return undefined;
  const { op, params } = plain;
  for (const key of Object.keys(body))
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const id = body.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  // The era as the SDK decides it (no envelope claim, a 2025 header: the session's, not modern).
  const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, body });
  if (route.kind !== 'legacy') return undefined;
  return { id: id as string | number, op, args: params.arguments };
}

/** The JSON response a 2025 session's transport writes for a tool's result. */
export function sessionToolCallResponse(id: string | number, result: CallToolResult): string {
  return jsonRpcResult(id, result);
}
