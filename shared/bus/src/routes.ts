/**
 * The bus through the routes table of @notetaker/contracts: a request is typed by its entry, its
 * reply is checked against the entry's reply schema where it arrives (another process, maybe
 * another version, answered it), and a server's handler gets its request parsed. The casts below
 * follow the parses themselves: TypeScript cannot carry a generic schema's output type through.
 */
import {
  firstIssueMessage,
  parseOrBadRequest,
  ServiceError,
  type Broadcast,
  type ParsedRequestOf,
  type ReplyIn,
  type ReplyOf,
  type RequestOf,
  type Route,
} from '@notetaker/contracts';
import type { z } from 'zod';
import type { Bus, MessageContext, RequestOptions, SubscribeOptions, Subscription } from './port.js';

/** Sends a request of `route` and resolves with its reply, checked; 502 `bad_reply` when it does not match. */
export async function call<R extends Route>(
  bus: Bus,
  route: R,
  data: RequestOf<R>,
  options?: RequestOptions,
): Promise<ReplyOf<R>> {
  const reply = route.reply.safeParse(await bus.request(route.subject, data, options));
  if (reply.success) return reply.data as ReplyOf<R>;
  throw new ServiceError(
    'bad_reply',
    `${route.subject} answered outside its contract: ${firstIssueMessage(reply.error)}`,
    502,
  );
}

/** Answers `route`: a request that does not match its schema is a 400 naming the field. */
export function answer<R extends Route>(
  bus: Bus,
  route: R,
  handler: (request: ParsedRequestOf<R>, ctx: MessageContext) => ReplyIn<R> | Promise<ReplyIn<R>>,
  options?: SubscribeOptions,
): Subscription {
  return bus.serve(
    route.subject,
    (data, ctx) => handler(parseOrBadRequest(route.request, data) as ParsedRequestOf<R>, ctx),
    options,
  );
}

export function announce<B extends Broadcast>(bus: Bus, broadcast: B, message: z.input<B['message']>): void {
  bus.publish(broadcast.subject, message);
}

/** Hears every message of `broadcast`; one that does not match goes to the bus's handler-error report. */
export function listen<B extends Broadcast>(
  bus: Bus,
  broadcast: B,
  handler: (message: z.output<B['message']>, ctx: MessageContext) => void | Promise<void>,
  options?: SubscribeOptions,
): Subscription {
  return bus.subscribe(
    broadcast.subject,
    (data, ctx) => handler(broadcast.message.parse(data) as z.output<B['message']>, ctx),
    options,
  );
}
