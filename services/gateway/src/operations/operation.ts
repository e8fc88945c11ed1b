/**
 * A capability of the API as the gateway serves it: its declaration (@notetaker/contracts,
 * capabilities/*.ts, in the owning service's module) and the handler that answers it. A capability
 * its owning service answers needs no code here: its handler sends the caller and the parsed input
 * to its route (`forwarded`). One the gateway composes from several services (the owner check
 * first, pages read on) has its own handler (`composed`), found by the capability's name.
 * The list of them (index.ts) generates the Koa routes (http/rest-routes.ts), the OpenAPI paths
 * (openapi/document.ts) and the MCP tools (mcp/tools.ts), so the three cannot drift apart.
 */
import type { z } from 'zod';
import { call, type Bus } from '@notetaker/bus';
import type { ApiCapability, Caller, RequestOf, Route } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';

export type { HttpMethod as Method, RestBinding, ToolBinding } from '@notetaker/contracts';

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends ApiCapability<
  I,
  O
> {
  // Method syntax on purpose: the list holds operations of different types, and a method's
  // parameter is checked bivariantly, so `Operation<Specific>` is an `Operation` without a cast.
  handler(bus: Bus, caller: Caller, input: z.infer<I>, request: RequestContext): Promise<z.infer<O>>;
}

/** What a handler may need of the request beyond its caller and input (REST's and MCP's alike). */
export interface RequestContext {
  /** What an absolute link in the answer starts with: PUBLIC_URL, else the request's origin (http/public-url.ts). */
  baseUrl: string;
}

type OperationOf<C extends ApiCapability> = Operation<C['input'], C['output']>;
export type HandlerOf<C extends ApiCapability> = OperationOf<C>['handler'];

const made = new WeakSet<object>();
/** True for an operation made here (index.ts gathers the area modules' by this). */
export const isOperation = (value: unknown): value is Operation =>
  typeof value === 'object' && value !== null && made.has(value);

function operation<C extends ApiCapability>(capability: C, handler: HandlerOf<C>): OperationOf<C> {
  const op: OperationOf<C> = { ...capability, handler };
  made.add(op);
  return op;
}

/** A capability its owning service answers: the caller and the parsed input go to its route. */
export function forwarded<C extends ApiCapability>(capability: C): OperationOf<C> {
  const { route, bus: binding } = capability;
  if (!route) throw new Error(`${capability.name} has no route: the gateway must compose it (operations/)`);
  const options = binding?.timeoutMs ? { timeoutMs: binding.timeoutMs } : undefined;
  // The input as parsed is what the service parses again (the declaration's rule), plus who asks.
  // (TypeScript cannot carry a generic schema's types through: the reply is checked against the output.)
  return operation(
    capability,
    (bus, caller, input) =>
      call(bus, route, { ...(input as object), caller } as RequestOf<Route>, options) as Promise<z.infer<C['output']>>,
  );
}

/** A capability the gateway answers with its own handler (which may call the capability's route too). */
export function composed<C extends ApiCapability>(capability: C, handler: HandlerOf<C>): OperationOf<C> {
  return operation(capability, handler);
}

/** Validates raw arguments with the operation's schema (a 400 naming the field), then handles them. */
export function perform<I extends z.ZodType, O extends z.ZodType>(
  op: Operation<I, O>,
  bus: Bus,
  caller: Caller,
  raw: unknown,
  request: RequestContext,
): Promise<z.infer<O>> {
  return op.handler(bus, caller, parseInput(op.input, raw), request);
}
