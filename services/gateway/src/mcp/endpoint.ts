/**
 * The Model Context Protocol at /mcp, beside REST on the gateway's port. Before any MCP exchange:
 * the Origin allow-list (403), the API key (401, as on REST), the body size limit (413, as on
 * REST). A plain `tools/call` of either era is then answered here, as the SDK would (direct.ts);
 * other 2026-07-28 requests go to the SDK's per-request handler, whose `subscriptions/listen`
 * streams hear our bus; other 2025-era requests go to sessions (see sessions.ts).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context, Middleware } from 'koa';
import { createMcpHandler, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { errors, type Caller } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
import { apiKeyAuth } from '../http/auth.js';
import { MAX_BODY_BYTES, readLimited } from '../http/body.js';
import { baseUrlOf } from '../http/public-url.js';
import type { GrantWatch } from '../identity/grants.js';
import type { TokenService } from '../identity/tokens.js';
import { authInfoOf, callerOf } from './caller.js';
import { normalOrigin, type McpConfig } from './config.js';
import { McpChangeRelay } from './event-bus.js';
import { assertSubscribable } from './resources.js';
import { directSessionToolCall, directToolCall, sessionToolCallResponse, toolCallResponse } from './direct.js';
import { createMcpServer, ServerPool } from './server.js';
import { LegacySessions, type SessionResponse } from './sessions.js';
import { callTool } from './tools.js';

export const MCP_PATH = '/mcp';

export interface McpEndpointDeps {
  bus: Bus;
  tokens: TokenService;
  /** Ends a revoked key's open streams and sessions (identity/grants.ts). */
  grants: GrantWatch;
  logger: Logger;
  config: McpConfig;
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
  const newServer = () => createMcpServer({ bus, logger });
  const pool = new ServerPool(newServer);
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

  async function serve(ctx: Context): Promise<void> {
    const caller = ctx.state.caller as TokenCaller;
    const request = { baseUrl: baseUrlOf(ctx) };
    const authInfo = authInfoOf(caller, request);
    if (Number(ctx.get('content-length') || 0) > MAX_BODY_BYTES) throw errors.payloadTooLarge();
    const raw = ctx.method === 'POST' ? await readLimited(ctx.req, MAX_BODY_BYTES) : undefined;
    const parsedBody = raw && raw.length > 0 && ctx.is('application/json') ? parseJson(raw) : undefined;
    if (parsedBody === INVALID_JSON) return send(ctx, jsonRpcParseError());
    // The plain 2026-07-28 tools/call: answered here, byte for byte as the SDK would (direct.ts).
    const direct = parsedBody === undefined ? undefined : directToolCall(ctx.req.headers, parsedBody);
    if (direct) {
      const result = await callTool(direct.op, bus, logger, caller, direct.args, request);
      return sendJson(ctx, toolCallResponse(direct.id, result));
    }
    // The plain tools/call on an open 2025-era session of this key: answered as its transport would.
    const sessionId = ctx.get('mcp-session-id');
    const call = sessionId && parsedBody !== undefined ? directSessionToolCall(ctx.req.headers, parsedBody) : undefined;
    const claimed = call && sessions.claim(sessionId, caller.tokenId);
    if (call && claimed) {
      try {
        const result = await callTool(call.op, bus, logger, caller, call.args, request);
        return sendJson(ctx, sessionToolCallResponse(call.id, result), { 'mcp-session-id': claimed.id });
      } finally {
        claimed.release();
      }
    }

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

/** Answers 200 with a JSON text already made (the direct tools/call answers), then `headers`. */
function sendJson(ctx: Context, text: string, headers: Record<string, string> = {}): void {
  ctx.respond = false;
  ctx.res.statusCode = 200;
  ctx.res.setHeader('content-type', 'application/json');
  for (const [name, value] of Object.entries(headers)) ctx.res.setHeader(name, value);
  ctx.res.end(text);
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
