import type { Context } from 'koa';
import type { Bus } from '@notetaker/bus';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/kit';

export interface RouteDeps {
  bus: Bus;
  logger: Logger;
}

/** The authenticated caller (set by the auth middleware on every /api/v1 request). */
export function callerOf(ctx: Context): Caller {
  return ctx.state.caller as Caller;
}
