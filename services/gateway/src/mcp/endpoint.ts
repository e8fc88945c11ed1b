/**
 * The Model Context Protocol at /mcp, beside REST on the gateway's port. Before any MCP exchange:
 * the Origin allow-list (403), the API key (401, as on REST), the body size limit (413, as on
 * REST). A plain `tools/call` of either era is then answered on a long-lived SDK connection of
 * the key's, without the web Request and Response the SDK's HTTP entries need (plain-tool-call.ts,
 * tool-call-lines.ts); other 2026-07-28 requests go to the SDK's per-request handler, whose
 * `subscriptions/listen` streams hear our bus; other 2025-era requests go to sessions (see
 * sessions.ts). `mcp_tool_calls_total` counts tools/call requests by the route they took.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context, Middleware } from 'koa';
import client from 'prom-client';
import { createMcpHandler, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { errors, type Caller } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import { apiKeyAuth } from '../http/auth.js';
import { MAX_BODY_BYTES, readLimited } from '../http/body.js';
import { baseUrlOf } from '../http/public-url.js';
import type { GrantWatch } from '../identity/grants.js';
import type { TokenService } from '../identity/tokens.js';
import type { RequestContext } from '../operations/operation.js';
import { authInfoOf, callerOf } from './caller.js';
import { normalOrigin, type McpConfig } from './config.js';
import { McpChangeRelay } from './event-bus.js';
import { assertSubscribable } from './resources.js';
import { plainSessionToolCall, plainToolCall, type PlainToolCall } from './plain-tool-call.js';
import { createMcpServer, ServerPool } from './server.js';
import { LegacySessions, type SessionResponse } from './sessions.js';
import { ToolCallLines } from './tool-call-lines.js';

export const MCP_PATH = '/mcp';

export interface McpEndpointDeps {
  bus: Bus;
  tokens: TokenService;
  /** Ends a revoked key's open streams and sessions (identity/grants.ts). */
  grants: GrantWatch;
  logger: Logger;
  config: McpConfig;
  metrics: client.Registry;
}

export interface McpEndpoint {
  middleware: Middleware;
  /** Open 2025-era sessions (for tests and the benchmark). */
  readonly sessionCount: number;
  close(): Promise<void>;
}

type TokenCaller = Extract<Caller, { kind: 'token' }>;

export function mcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const { bus, logger, config } = deps;
  const events = new McpChangeRelay(bus, logger);
  const newServer = () => createMcpServer({ bus, logger }, 'legacy');
  const pool = new ServerPool(() => createMcpServer({ bus, logger }, 'modern'));
  const lines = new ToolCallLines(
    (era, caller, request) => createMcpServer({ bus, logger }, era, { caller, request }),
    logger,
  );
  const onerror = (err: Error) => logger.debug({ err }, 'MCP request refused');
  // Every request reaching the handler was authenticated: its AuthInfo names the key to pool by.
  const modern = createMcpHandler(({ authInfo }) => pool.take(callerOfAuth(authInfo).tokenId), {
    legacy: 'reject',
    bus: events,
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror,
  });
  const sessions = new LegacySessions({
    bus,
    logger,
    events,
    grants: deps.grants,
    newServer,
    idleMs: config.sessionIdleMs,
    maxPerKey: config.maxSessionsPerKey,
  });
  const authenticate = apiKeyAuth(deps.tokens);
  const toolCalls = new client.Counter({
    name: 'mcp_tool_calls_total',
    help: "MCP tools/call requests by route: plain (a long-lived SDK connection of the key's), sdk (the SDK's HTTP handler or a session's transport)",
    labelNames: ['route'],
    registers: [deps.metrics],
  });
  const plainToolCalls = toolCalls.labels('plain');
  const sdkToolCalls = toolCalls.labels('sdk');

  async function serve(ctx: Context): Promise<void> {
    const caller = ctx.state.caller as TokenCaller;
    const request = { baseUrl: baseUrlOf(ctx) };
    if (Number(ctx.get('content-length') || 0) > MAX_BODY_BYTES) throw errors.payloadTooLarge();
    const raw = ctx.method === 'POST' ? await readLimited(ctx.req, MAX_BODY_BYTES) : undefined;
    const parsedBody = raw && raw.length > 0 && isJson(ctx) ? parseJson(raw) : undefined;
    if (parsedBody === INVALID_JSON) return send(ctx, jsonRpcParseError());
    if (parsedBody !== undefined && (await answeredPlainly(ctx, caller, request, parsedBody))) {
      plainToolCalls.inc();
      return;
    }
    if ((parsedBody as { method?: unknown } | undefined)?.method === 'tools/call') sdkToolCalls.inc();
    const authInfo = authInfoOf(caller, request);

    // Tells the SDK the client went away (a listen stream ends with it); not after a full answer.
    const abort = new AbortController();
    ctx.res.once('close', () => ctx.res.writableFinished || abort.abort());
    const webRequest = new Request(new URL(ctx.originalUrl, 'http://gateway.invalid'), {
      method: ctx.method,
      headers: headersOf(ctx),
      // Parsed already, the SDK reads `parsedBody`; otherwise it answers the bytes itself (415, parse error).
      body: parsedBody === undefined && raw && raw.length > 0 ? new Uint8Array(raw) : undefined,
      signal: abort.signal,
    });

    if (await isLegacyRequest(webRequest, parsedBody, { maxRequestBodySize: MAX_BODY_BYTES })) {
      const answered: SessionResponse = await sessions.handle(webRequest, caller, authInfo, parsedBody);
      try {
        return await send(ctx, answered.response);
      } finally {
        answered.release();
      }
    }
    const refused = await refusedListen(parsedBody, caller);
    const response = refused ?? (await modern.fetch(webRequest, { authInfo, parsedBody }));
    if (!isEventStream(response)) return send(ctx, response);
    // A listen stream was let in by this key once: it ends (the SDK closes it on abort) when the key is revoked.
    const unwatch = deps.grants.watch({ kind: 'token', tokenId: caller.tokenId }, () => abort.abort());
    try {
      return await send(ctx, response);
    } finally {
      unwatch();
    }
  }

  /**
   * Answers a plain tools/call (plain-tool-call.ts) on the SDK's long-lived connections
   * (tool-call-lines.ts): of 2026-07-28, or of 2025 on an open session of this key, which counts
   * busy meanwhile and whose id the answer carries, as its transport's would. False for any other
   * request, left to the SDK's HTTP entries.
   */
  async function answeredPlainly(
    ctx: Context,
    caller: TokenCaller,
    request: RequestContext,
    body: unknown,
  ): Promise<boolean> {
    const modernCall = plainToolCall(ctx.req.headers, body);
    if (modernCall) {
      sendJson(ctx, await lines.answer(modernCall, caller, request));
      return true;
    }
    const sessionId = ctx.get('mcp-session-id');
    const call: PlainToolCall | undefined = sessionId ? plainSessionToolCall(ctx.req.headers, body) : undefined;
    const claimed = call && sessions.claim(sessionId, caller.tokenId);
    if (!call || !claimed) return false;
    try {
      sendJson(ctx, await lines.answer(call, caller, request), { 'mcp-session-id': claimed.id });
      return true;
    } finally {
      claimed.release();
    }
  }

  /** A key may listen only to the transcripts of its own meetings (the SDK checks no owner). */
  async function refusedListen(body: unknown, caller: TokenCaller): Promise<Response | undefined> {
    const message = body as { id?: unknown; method?: unknown; params?: { notifications?: unknown } } | undefined;
    if (message?.method !== 'subscriptions/listen') return undefined;
    const wanted = (message.params?.notifications as { resourceSubscriptions?: unknown } | undefined)
      ?.resourceSubscriptions;
    if (!Array.isArray(wanted)) return undefined;
    try {
      for (const uri of wanted) await assertSubscribable({ bus, logger }, caller, String(uri));
      return undefined;
    } catch (err) {
      const { code, message: text, data } = err as { code: number; message: string; data?: unknown };
      return Response.json({ jsonrpc: '2.0', id: message.id ?? null, error: { code, message: text, data } });
    }
  }

  const middleware: Middleware = async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    const origin = ctx.get('origin');
    if (origin && !config.allowedOrigins.has(normalOrigin(origin))) throw errors.forbidden('Origin not allowed');
    await authenticate(ctx, async () => {});
    if (!['GET', 'POST', 'DELETE'].includes(ctx.method)) {
      ctx.set('Allow', 'GET, POST, DELETE');
      ctx.status = 405;
      ctx.body = { error: 'Method not allowed' };
      return;
    }
    await serve(ctx);
  };

  return {
    middleware,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      await modern.close();
      pool.clear();
      await lines.closeAll();
      await sessions.closeAll();
    },
  };
}

const INVALID_JSON = Symbol('invalid JSON');

const callerOfAuth = (authInfo: AuthInfo | undefined) => callerOf({ http: { authInfo } });

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return INVALID_JSON;
  }
}

/** A JSON body, as Koa tells (the exact type every SDK client sends is known without parsing it). */
const isJson = (ctx: Context) => ctx.get('content-type') === 'application/json' || Boolean(ctx.is('application/json'));

function jsonRpcParseError(): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }, { status: 400 });
}

function headersOf(ctx: Context): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

const isEventStream = (response: Response) =>
  response.headers.get('content-type')?.startsWith('text/event-stream') === true;

/**
 * Answers 200 `application/json` with a JSON-RPC message as the SDK's HTTP transports write one
 * (`Response.json`: the message's JSON, nothing after it), then `headers`.
 */
function sendJson(ctx: Context, message: unknown, headers: Record<string, string> = {}): void {
  ctx.respond = false;
  ctx.res.statusCode = 200;
  ctx.res.setHeader('content-type', 'application/json');
  for (const [name, value] of Object.entries(headers)) ctx.res.setHeader(name, value);
  ctx.res.end(JSON.stringify(message));
}

/** Writes a web Response to Node's response: an event stream as it comes (it stays open), the rest whole. */
async function send(ctx: Context, response: Response): Promise<void> {
  ctx.respond = false;
  const res = ctx.res;
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  if (!isEventStream(response)) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  res.flushHeaders();
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res).catch(() => {});
}
