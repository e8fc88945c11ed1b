/**
 * JSON request bodies, read by hand so the limit and the messages are ours: over 1 MB is 413,
 * malformed JSON is 400, and a body is only parsed for methods that carry one.
 */
import type { IncomingMessage } from 'node:http';
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

/**
 * The whole body, or 413 past `limit` (nothing more kept). Read by events rather than `for await`,
 * whose async iterator cost each small request about 5 us more (test/bench/mcp.bench.ts).
 */
export function readLimited(stream: IncomingMessage, limit: number): Promise<Buffer> {
  if (stream.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => new LimitedRead(stream, limit, resolve, reject).start());
}

/**
 * One body being read. Its listeners are methods bound once per read, not closures: run under tsx
 * (as `npm start` runs), each named closure made per request costs a property definition. A request
 * emits 'error' only to a listener, so none is left once the body is read or refused.
 */
class LimitedRead {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly onData = this.data.bind(this);
  private readonly onEnd = this.end.bind(this);
  private readonly onError = this.settle.bind(this);
  private readonly onClose = this.closed.bind(this);

  constructor(
    private readonly stream: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  start(): void {
    this.stream.on('data', this.onData);
    this.stream.once('end', this.onEnd);
    this.stream.once('error', this.onError);
    this.stream.once('close', this.onClose);
    if (this.stream.destroyed) this.closed();
  }

  private data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= this.limit) return void this.chunks.push(chunk);
    this.settle(errors.payloadTooLarge());
    this.stream.resume(); // the rest flows on, to no listener: read and dropped, as Node drops an unread body
  }

  private end(): void {
    this.settle();
  }

  /** Closed before its end: the client went away mid-body. */
  private closed(): void {
    this.settle(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  }

  private settle(err?: Error): void {
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    this.stream.off('error', this.onError);
    this.stream.off('close', this.onClose);
    if (err) this.reject(err);
    else this.resolve(Buffer.concat(this.chunks, this.size));
  }
}

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}
