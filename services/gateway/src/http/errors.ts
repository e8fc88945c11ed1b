/**
 * The first middleware: every error becomes `{error: string}`. Messages are shown for 4xx and for
 * a 503 of load (with `Retry-After`); any other 5xx answers a generic message with the request id,
 * so an operator can find the log line and a client never sees a stack trace.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { Middleware } from 'koa';
import { ServiceError } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';

export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    const requestId = crypto.randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      // Koa's own 404 and the router's 405 come without a body; every error answers {error}.
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        const status = ctx.status;
        ctx.body = { error: status === 404 ? 'Not found' : (http.STATUS_CODES[status] ?? 'Error') };
        ctx.status = status;
      }
    } catch (err) {
      const { status, message } = publicError(err, requestId, logger, { method: ctx.method, path: ctx.path });
      ctx.status = status;
      ctx.body = { error: message };
      // Load, not a fault: the header says when to come back.
      if (err instanceof ServiceError && err.retryAfterS !== undefined) ctx.set('Retry-After', String(err.retryAfterS));
      // RFC 9110: a 401 names the scheme to authenticate with (an API key, sent as a Bearer token).
      if (status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="notetaker"');
    }
  };
}

/**
 * What a client is told about a failure, over REST and MCP alike: the message of a 4xx; for a 5xx
 * a generic one with the request id, the error itself going to the log only.
 */
export function publicError(
  err: unknown,
  requestId: string,
  logger: Logger,
  where: Record<string, unknown>,
): { status: number; message: string } {
  const status = statusOf(err);
  if (status < 500) return { status, message: (err as Error).message || 'Bad request' };
  // Every bot seat taken, or no browser for the bots: its message says so (and what to do) and when to retry.
  if (err instanceof ServiceError && err.retryAfterS !== undefined) return { status, message: err.message };
  const unavailable = err instanceof ServiceError && err.retryable;
  logger.error({ err, requestId, ...where }, 'request failed');
  return {
    status,
    message: `${unavailable ? 'Service temporarily unavailable' : 'Internal server error'} (request ${requestId})`,
  };
}

function statusOf(err: unknown): number {
  if (err instanceof ServiceError) return err.status;
  const status = (err as { status?: unknown }).status;
  // Koa's own errors (ctx.throw, http-errors) carry a status and an exposable message.
  if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: boolean }).expose)
    return status;
  return 500;
}
