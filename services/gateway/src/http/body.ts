/**
 * JSON request bodies, read by hand so the limit and the messages are ours: over 1 MB is 413,
 * malformed JSON is 400, and a body is only parsed for methods that carry one.
 */
import type { Middleware } from 'koa';
import { errors } from '@notetaker/contracts';

export const MAX_BODY_BYTES = 1024 * 1024;

export function jsonBody(limit = MAX_BODY_BYTES): Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limit) throw errors.payloadTooLarge();
    const raw = await readLimited(ctx.req, limit);
    ctx.state.rawBody = raw;
    if (raw.length === 0) {
      ctx.request.body = undefined;
    } else if (ctx.is('application/json') || !ctx.get('content-type')) {
      try {
        ctx.request.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw errors.badRequest('Malformed JSON body');
      }
    } else {
      throw errors.badRequest('Content-Type must be application/json');
    }
    return next();
  };
}

export async function readLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw errors.payloadTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}
