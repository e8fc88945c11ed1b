/**
 * The gateway's Koa application: error handling first, then ops endpoints, the MCP server at /mcp,
 * the web UI, then the authenticated REST API under /api/v1.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type client from 'prom-client';
import type { Bus } from '@notetaker/bus';
import { opsRouter, type Logger, type ReadinessCheck, type ReadinessDetails } from '@notetaker/observability';
import { API_PREFIX, isApiPath } from './http/api-path.js';
import { apiKeyAuth } from './http/auth.js';
import { jsonBody } from './http/body.js';
import { errorMiddleware } from './http/errors.js';
import type { TokenService } from './identity/tokens.js';
import { openApiDocument } from './openapi/document.js';
import type { McpEndpoint } from './mcp/endpoint.js';
import { publicUrl } from './http/public-url.js';
import { recordingDownloadRoute } from './http/recording-download.js';
import { restRoutes } from './http/rest-routes.js';
import { OPERATIONS } from './operations/index.js';
import { webInterface, type WebDeps } from './web/index.js';

/** The one route served without a key: the document describes the API, it holds nothing private. */
const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

function underApi(middleware: Koa.Middleware): Koa.Middleware {
  return (ctx, next) => (isApiPath(ctx.path) && ctx.path !== OPENAPI_PATH ? middleware(ctx, next) : next());
}

/**
 * Every REST route under /api/v1: one per operation, the recording download beside them (it
 * answers bytes, not JSON), and the OpenAPI document (all three described by the document).
 */
export function apiRouter(deps: { bus: Bus; logger: Logger }): Router {
  const api = new Router({ prefix: API_PREFIX });
  restRoutes(api, deps.bus, OPERATIONS);
  recordingDownloadRoute(api, deps.bus, deps.logger);
  api.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });
  return api;
}

export interface GatewayDeps {
  bus: Bus;
  tokens: TokenService;
  logger: Logger;
  metrics: client.Registry;
  ready: ReadinessCheck;
  /** Shown on /readyz beside the status (the stack's services' own). */
  readinessDetails?: ReadinessDetails;
  /** The browser application at `/` (session cookies); absent, only the REST API is served. */
  web?: WebDeps;
  /** The Model Context Protocol server at /mcp; absent, not served. */
  mcp?: McpEndpoint;
  /** PUBLIC_URL: the base of absolute links in answers; null: each request's own origin. */
  publicUrl?: string | null;
}

/** A client that went away while its answer was being sent (a media player seeking does it all the time). */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

export function createGatewayApp(deps: GatewayDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  // What fails once an answer is under way (errorMiddleware answers everything before): to the log,
  // not to stderr as Koa would print it; a client gone is no failure of ours.
  app.on('error', (err: Error & { code?: string; status?: number; expose?: boolean }, ctx?: Koa.Context) => {
    const where = { err, method: ctx?.method, path: ctx?.path };
    if (err.status === 404 || err.expose) return; // what Koa itself leaves unprinted
    if (CLIENT_GONE.has(err.code ?? '')) deps.logger.debug(where, 'client went away during the answer');
    else deps.logger.warn(where, 'answer failed after it started');
  });
  app.use(errorMiddleware(deps.logger));
  app.use(opsRouter({ registry: deps.metrics, ready: deps.ready, details: deps.readinessDetails }).routes());
  app.use(publicUrl(deps.publicUrl ?? null));
  // Authenticates and reads its own bodies, under the same key rules and size limit as REST. Before
  // the web pages, as REST skips them: matching their routes cost an MCP call about 2% of its time.
  if (deps.mcp) app.use(deps.mcp.middleware);
  if (deps.web) app.use(webInterface(deps.web));

  // Authentication before anything reads the body: an anonymous caller cannot make us buffer 1 MB.
  app.use(underApi(apiKeyAuth(deps.tokens)));
  app.use(underApi(jsonBody()));

  const api = apiRouter({ bus: deps.bus, logger: deps.logger });
  app.use(api.routes());
  app.use(api.allowedMethods());
  return app;
}
