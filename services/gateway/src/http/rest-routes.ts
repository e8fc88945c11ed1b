/**
 * The REST routes, generated from the operations list: one generic adapter gathers the path, the
 * query (get, delete) or the body (post, put) into one input object, validates it with the
 * operation's schema (a 400 naming the field), calls its handler and answers with its status.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Bus } from '@notetaker/bus';
import { pathParameters, type Caller } from '@notetaker/contracts';
import { contentDisposition } from '../operations/transcripts.js';
import { perform, type Operation } from '../operations/operation.js';
import { baseUrlOf } from './public-url.js';
import { parseInput } from './validate.js';

/**
 * Where REST reads an operation's input besides the path: its query or body schema (the input's
 * other fields), or none when the path holds it all (then the query and body are ignored, as a
 * route without input always did). OpenAPI documents the same split.
 */
export function restInput(op: Operation): RestInput | null {
  if (op.rest.body) return { in: 'body', schema: op.rest.body.schema };
  const shape = (op.input as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const path = pathParameters(op.rest.path);
  if (Object.keys(shape).every((field) => path.includes(field))) return null;
  const rest = path.length === 0 ? op.input : (op.input as unknown as ObjectSchema).omit(mask(path));
  return { in: op.rest.method === 'get' || op.rest.method === 'delete' ? 'query' : 'body', schema: rest };
}

type RestInput = { in: 'query' | 'body'; schema: Operation['input'] };
type ObjectSchema = { omit(mask: Record<string, true>): Operation['input'] };
const mask = (fields: string[]) => Object.fromEntries(fields.map((f) => [f, true as const]));

/**
 * The operation's raw input from a request: the query or body, with the path parameters over it;
 * `from` is the operation's `restInput`, worked out once when its route is built.
 */
function gather(op: Operation, from: RestInput | null, ctx: Context): unknown {
  const { body } = op.rest;
  // The body alone is checked first, so a path parameter's name in it is an unknown field.
  if (body) return { ...ctx.params, [body.field]: parseInput(body.schema, ctx.request.body) };
  const raw = from === null ? {} : from.in === 'query' ? ctx.query : ctx.request.body;
  return Object.keys(ctx.params).length === 0 ? raw : { ...(raw as object), ...ctx.params };
}

export function restRoutes(router: Router, bus: Bus, operations: readonly Operation[]): void {
  for (const op of operations) {
    const from = restInput(op);
    router[op.rest.method](op.rest.path, async (ctx) => {
      // Set by the API-key middleware on every /api/v1 request.
      const caller = ctx.state.caller as Caller;
      const input = gather(op, from, ctx);
      const output = (await perform(op, bus, caller, input, { baseUrl: baseUrlOf(ctx) })) as Record<string, unknown>;
      if (op.rest.markdown) {
        const doc = output as { filename: string; content: string };
        ctx.set('Content-Disposition', contentDisposition(doc.filename));
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/markdown; charset=utf-8';
        ctx.body = doc.content;
        return;
      }
      ctx.body = output;
      ctx.status = op.rest.status;
    });
  }
}
