import type { Context } from 'koa';
import type { Bus } from '@notetaker/bus';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/kit';
import { perform, type Operation } from '../operations/operation.js';

export interface RouteDeps {
  bus: Bus;
  logger: Logger;
}

/** The authenticated caller (set by the auth middleware on every /api/v1 request). */
export function callerOf(ctx: Context): Caller {
  return ctx.state.caller as Caller;
}

/**
 * A route answering with an operation: its arguments gathered from the request by `args`,
 * validated by the operation's schema, the body it returns sent with `status`.
 */
export function answer(
  deps: RouteDeps,
  op: Operation,
  args: (ctx: Context) => unknown,
  status = 200,
): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    ctx.body = await perform(op, deps.bus, callerOf(ctx), args(ctx));
    ctx.status = status;
  };
}
