/**
 * Sessions for 2025-era clients (2025-11-25, 2025-06-18): the SDK's Streamable HTTP transport in
 * stateful mode, one server per session, so that they too can `resources/subscribe`.
 *
 * - A session belongs to the API key that opened it; its id sent with another key is answered as
 *   an unknown session (404), so a leaked id is worth nothing without the key.
 * - It ends after `idleMs` with no request in flight and no stream open, on DELETE, or when its
 *   key is revoked (then its id is unknown: 404, as any ended session).
 * - One key holds at most `maxPerKey` open sessions; one more is refused with a message saying so.
 */
import crypto from 'node:crypto';
import {
  WebStandardStreamableHTTPServerTransport,
  isInitializeRequest,
  type AuthInfo,
  type McpServer,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { GrantWatch } from '../identity/grants.js';
import { callerOf } from './caller.js';
import { assertSubscribable, type ResourceDeps } from './resources.js';

export interface SessionOptions extends ResourceDeps {
  idleMs: number;
  maxPerKey: number;
  newServer(): McpServer;
  events: ServerEventBus;
  /** Ends a key's sessions when it is revoked, on whichever gateway that happens. */
  grants: GrantWatch;
  logger: Logger;
}

interface Session {
  id: string;
  tokenId: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Transcript URIs this session subscribed to. */
  subscribed: Set<string>;
  stopListening?: () => void;
  /** Stops ending this session with its key's revocation. */
  unwatch?: () => void;
  /** Requests being answered, streams open: a session is idle only at 0. */
  active: number;
  idleTimer?: NodeJS.Timeout;
}

/** A response, and `release` to call once it has been sent in full (or the client went away). */
export interface SessionResponse {
  response: Response;
  release(): void;
}

const NOTHING_TO_RELEASE = () => {};

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions opening (initialize in flight) per key, so two at once cannot pass the bound. */
  private readonly opening = new Map<string, number>();

  constructor(private readonly options: SessionOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(
    request: Request,
    caller: Extract<Caller, { kind: 'token' }>,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<SessionResponse> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.owned(sessionId, caller.tokenId);
      if (!session) {
        return { response: jsonRpcError(404, -32001, 'Session not found'), release: NOTHING_TO_RELEASE };
      }
      return this.serve(session, request, authInfo, parsedBody);
    }
    const initialize = Array.isArray(parsedBody)
      ? parsedBody.some(isInitializeRequest)
      : isInitializeRequest(parsedBody);
    if (request.method !== 'POST' || !initialize) {
      return {
        response: jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required'),
        release: NOTHING_TO_RELEASE,
      };
    }
    return { response: await this.open(request, caller, authInfo, parsedBody), release: NOTHING_TO_RELEASE };
  }

  /**
   * The open session `sessionId` names when it is the caller's, counted busy until `release` (the
   * direct tools/call path answers on it without its transport); undefined for any other.
   */
  claim(sessionId: string, tokenId: string): { id: string; release(): void } | undefined {
    const session = this.owned(sessionId, tokenId);
    if (!session) return undefined;
    return { id: session.id, release: this.busy(session) };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => this.end(session)));
  }

  /** The open session `sessionId` names when the key `tokenId` opened it; undefined for any other. */
  private owned(sessionId: string, tokenId: string): Session | undefined {
    const session = this.sessions.get(sessionId);
    return session?.tokenId === tokenId ? session : undefined;
  }

  /**
   * Counts `session` busy (its idle timer does not end it) until the returned release is called;
   * releasing more than once counts once, and re-arms the idle timer.
   */
  private busy(session: Session): () => void {
    session.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      session.active--;
      this.armIdleTimer(session);
    };
  }

  private openCount(tokenId: string): number {
    let n = this.opening.get(tokenId) ?? 0;
    for (const session of this.sessions.values()) if (session.tokenId === tokenId) n++;
    return n;
  }

  private async open(
    request: Request,
    caller: Extract<Caller, { kind: 'token' }>,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<Response> {
    const { maxPerKey } = this.options;
    if (this.openCount(caller.tokenId) >= maxPerKey) {
      return jsonRpcError(
        429,
        -32000,
        `Too many open MCP sessions for this API key (at most ${maxPerKey}): end one with DELETE /mcp or let it expire`,
      );
    }
    this.opening.set(caller.tokenId, (this.opening.get(caller.tokenId) ?? 0) + 1);
    const server = this.options.newServer();
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        session = { id, tokenId: caller.tokenId, server, transport, subscribed: new Set(), active: 0 };
        this.sessions.set(id, session);
        this.armIdleTimer(session);
        // Requests with a revoked key are refused (401), but its open GET stream would go on
        // carrying notifications: the session ends with the key.
        const ending = session;
        session.unwatch = this.options.grants.watch({ kind: 'token', tokenId: caller.tokenId }, () => {
          this.end(ending).catch((err) => this.options.logger.warn({ err }, 'closing a revoked MCP session failed'));
        });
      },
      onsessionclosed: (id) => {
        const closing = this.sessions.get(id);
        if (closing) this.forget(closing);
      },
    });
    this.acceptSubscriptions(server, () => session);
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { authInfo, parsedBody });
    } finally {
      const left = (this.opening.get(caller.tokenId) ?? 1) - 1;
      if (left > 0) this.opening.set(caller.tokenId, left);
      else this.opening.delete(caller.tokenId);
      if (!session) await server.close().catch(() => {});
    }
  }

  private async serve(
    session: Session,
    request: Request,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<SessionResponse> {
    const release = this.busy(session);
    try {
      return { response: await session.transport.handleRequest(request, { authInfo, parsedBody }), release };
    } catch (err) {
      release();
      throw err;
    }
  }

  private armIdleTimer(session: Session): void {
    clearTimeout(session.idleTimer);
    if (!this.sessions.has(session.id)) return;
    session.idleTimer = setTimeout(() => {
      if (session.active > 0) return this.armIdleTimer(session);
      this.end(session).catch((err) => this.options.logger.warn({ err }, 'closing an idle MCP session failed'));
    }, this.options.idleMs);
    session.idleTimer.unref();
  }

  /** `resources/subscribe` and `unsubscribe` on a session: owner-checked like every read. */
  private acceptSubscriptions(server: McpServer, current: () => Session | undefined): void {
    server.server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      const session = current();
      if (!session) throw new Error('resources/subscribe before the session was initialized');
      await assertSubscribable(this.options, callerOf(ctx), request.params.uri);
      session.subscribed.add(request.params.uri);
      session.stopListening ??= this.options.events.subscribe((event) => {
        if (event.kind !== 'resource_updated' || !session.subscribed.has(event.uri)) return;
        session.server.server.sendResourceUpdated({ uri: event.uri }).catch(() => {});
      });
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', async (request) => {
      const session = current();
      session?.subscribed.delete(request.params.uri);
      if (session?.subscribed.size === 0) {
        session.stopListening?.();
        session.stopListening = undefined;
      }
      return {};
    });
  }

  private forget(session: Session): void {
    this.sessions.delete(session.id);
    clearTimeout(session.idleTimer);
    session.unwatch?.();
    session.stopListening?.();
    session.stopListening = undefined;
  }

  private async end(session: Session): Promise<void> {
    this.forget(session);
    await session.server.close().catch(() => {});
  }
}
