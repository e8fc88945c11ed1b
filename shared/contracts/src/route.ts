/**
 * What a bus route is: a request/reply subject with the schema of its request and of its reply, or
 * a broadcast with the schema of its message. The table of them is routes.ts; a capability's route
 * is derived from its declaration (capability.ts).
 */
import type { z } from 'zod';
import { broadcastSubject, svc, type ServiceName } from './subjects.js';

export interface Route<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export interface Broadcast<M extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly message: M;
}

/** What a caller sends (defaults may be left out) and what it gets back, checked. */
export type RequestOf<R extends Route> = z.input<R['request']>;
export type ReplyOf<R extends Route> = z.output<R['reply']>;
/** What a server's handler receives (parsed, defaults filled) and must return. */
export type ParsedRequestOf<R extends Route> = z.output<R['request']>;
export type ReplyIn<R extends Route> = z.input<R['reply']>;

/** A request/reply route: the only place a verb is spelled. */
export function route<Req extends z.ZodType, Rep extends z.ZodType>(
  service: ServiceName,
  verb: string,
  request: Req,
  reply: Rep,
): Route<Req, Rep> {
  return { subject: svc(service, verb), request, reply };
}

export function broadcast<M extends z.ZodType>(service: ServiceName, verb: string, message: M): Broadcast<M> {
  return { subject: broadcastSubject(service, verb), message };
}
