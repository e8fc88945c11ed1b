/**
 * A capability of the API, declared once, in the contract module of the service that owns it
 * (capabilities/*.ts): its name (the MCP tool's), its input and output schemas with their
 * defaults, the errors it answers, the token capability it needs, how REST serves it and how MCP
 * offers it. The rest follows from the declaration:
 * - the bus route the owning service answers (`svc.<service>.<verb>`; its request is the input
 *   plus who asks, its reply the output), listed in routes.ts by verb;
 * - at the gateway, the operation (its handler calls that route, or, for a capability the gateway
 *   composes from several services, is the gateway's own, found by name), the REST route, the
 *   OpenAPI path with its parameters and the MCP tool.
 * docs/ARCHITECTURE.md, "Adding a capability", shows one.
 */
import { z } from 'zod';
import type { Capability as TokenCapability } from './identity.js';
import { caller } from './messages.js';
import { route, type Route } from './route.js';
import type { ServiceName } from './subjects.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface RestBinding {
  method: HttpMethod;
  /** Koa's spelling, relative to /api/v1: `/tasks/:name`. Each path parameter is a field of the input. */
  path: string;
  /** The success status: 200, 201 (created), 202 (accepted, goes on after the answer). */
  status: number;
  /**
   * The other input fields come from the query (get, delete) or the JSON body (post, put). `body`
   * instead puts the whole body under one input field, checked by its own schema first (so a path
   * parameter's name in the body is an unknown field, not the path's).
   */
  body?: { field: string; schema: z.ZodType };
  /** The answer is `output.content` as a text/markdown download named `output.filename`. */
  markdown?: true;
  /** The OpenAPI tag the path is listed under: any word; the document lists the tags its paths use. */
  tag: string;
  /** The OpenAPI summary, and its success response's description. */
  summary: string;
  description: string;
}

/**
 * A REST binding as declared: the success status is 200 and the tag is the path's first segment
 * (`/tasks/:name/run` is listed under `tasks`) unless the declaration says otherwise.
 */
export type RestDeclaration = Omit<RestBinding, 'status' | 'tag'> & Partial<Pick<RestBinding, 'status' | 'tag'>>;

/** MCP's tool annotations, by their shape (the contracts depend on no MCP library). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolBinding<O extends z.ZodType> {
  title: string;
  description: string;
  annotations: ToolHints;
  /** The short text a client without structuredContent support shows. */
  text(output: z.infer<O>): string;
}

/**
 * Whom the owning service answers for. `caller`: a key sees only what it started (meetings and
 * their deliveries), so the request names who asks. `instance`: every caller gets the same answer
 * (projects, search, tasks) and services ask too, for themselves: who asks comes along when
 * someone does (a task's run records whether a key or the web ran it).
 */
export type Scope = 'caller' | 'instance';

export interface BusBinding<S extends Scope = Scope, V extends string = string, X extends Fields = Fields> {
  /** The owning service: the route is `svc.<service>.<verb>`, served in its queue group. */
  service: ServiceName;
  verb: V;
  scope: S;
  /**
   * Request fields that differ from the input's, for the services' own callers (the web's start
   * has no callback): each replaces the input's field of that name on the bus only.
   */
  fields?: X;
  /** How long the gateway waits for the answer, when the bus's default is too short. */
  timeoutMs?: number;
}

type Fields = z.core.$ZodLooseShape;
type AnyObject = z.ZodObject<z.core.$ZodShape, z.core.$ZodObjectConfig>;

interface Declaration<I extends z.ZodType, O extends z.ZodType> {
  /** Also the MCP tool's name: `start_meeting`. */
  name: string;
  /**
   * The arguments, as one object with its defaults (REST gathers it from the path, the query or
   * the body). A capability with a route sends its input as parsed, and the service parses it
   * again: defaults and transforms must give what parses again to the same.
   */
  input: I;
  /** The REST response body; the tool's structuredContent; the route's reply. */
  output: O;
  /** Error statuses it answers besides 401 (every route) and 400 (every route with input): status -> when. */
  errors?: Record<number, string>;
  /**
   * The token capability it requires, when it requires one. The check is the owning service's
   * (meeting-session refuses saveTranscript without knowledge:write), so every interface shares
   * it; here it is documented (OpenAPI's 403).
   */
  needs?: TokenCapability;
  rest: RestDeclaration;
  tool: ToolBinding<O>;
}

/** A declared capability, as the gateway and the documents read it. */
export interface ApiCapability<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends Omit<
  Declaration<I, O>,
  'rest'
> {
  rest: RestBinding;
  /** How its owning service answers it; null when the gateway composes it (its handler is the gateway's). */
  readonly bus: BusBinding | null;
  readonly route: Route | null;
}

type CallerField<S extends Scope> = S extends 'caller' ? typeof caller : z.ZodOptional<typeof caller>;
/** The route's request: the input's fields (those of `fields` in their place) and who asks. */
export type RequestShape<I extends AnyObject, S extends Scope, X extends Fields> = Omit<
  I['shape'],
  keyof X | 'caller'
> &
  X & { caller: CallerField<S> };
export type CapabilityRoute<I extends AnyObject, O extends z.ZodType, S extends Scope, X extends Fields> = Route<
  z.ZodObject<RequestShape<I, S, X>, z.core.$strip>,
  O
>;

/** A capability its owning service answers on its route. */
export type RoutedCapability<
  I extends AnyObject = AnyObject,
  O extends z.ZodType = z.ZodType,
  S extends Scope = Scope,
  V extends string = string,
  X extends Fields = Fields,
> = ApiCapability<I, O> & { readonly bus: BusBinding<S, V, X>; readonly route: CapabilityRoute<I, O, S, X> };

/** A capability the gateway composes from other routes (ownership first, several services). */
export type ComposedCapability<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> = ApiCapability<
  I,
  O
> & { readonly bus: null; readonly route: null };

/**
 * Declares a capability. With `bus`, its route is derived: request = the input's fields (strip:
 * a newer caller's extra field is dropped, as on every route) plus `caller`, reply = the output.
 * Without, the gateway composes it. Throws at load when a path parameter is no input field.
 */
export function defineCapability<
  I extends AnyObject,
  O extends z.ZodType,
  S extends Scope,
  V extends string,
  X extends Fields = Record<never, never>,
>(declaration: Declaration<I, O> & { bus: BusBinding<S, V, X> }): RoutedCapability<I, O, S, V, X>;
export function defineCapability<I extends AnyObject, O extends z.ZodType>(
  declaration: Declaration<I, O> & { bus?: undefined },
): ComposedCapability<I, O>;
export function defineCapability(
  declaration: Declaration<AnyObject, z.ZodType> & { bus?: BusBinding },
): ApiCapability<AnyObject, z.ZodType> {
  const { name, input, rest } = declaration;
  const fields = Object.keys(input.shape);
  for (const parameter of pathParameters(rest.path)) {
    if (!fields.includes(parameter)) throw new Error(`${name}: path parameter :${parameter} is no field of its input`);
  }
  if (rest.body && !fields.includes(rest.body.field))
    throw new Error(`${name}: body field ${rest.body.field} is no field of its input`);
  const capability = { ...declaration, rest: withDefaults(rest) };
  const { bus } = declaration;
  if (!bus) return { ...capability, bus: null, route: null };
  const request = z.object({
    ...input.shape,
    ...bus.fields,
    caller: bus.scope === 'caller' ? caller : caller.optional(),
  });
  return { ...capability, bus, route: route(bus.service, bus.verb, request, declaration.output) };
}

/** The declared binding with what it leaves out: status 200, the tag the path's first segment. */
function withDefaults({ status = 200, tag, ...binding }: RestDeclaration): RestBinding {
  return { ...binding, status, tag: tag ?? binding.path.split('/')[1] };
}

/** The `:name`s of a Koa path, in order: `/tasks/:name/run` -> `['name']`. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map(([, name]) => name);
}

type RoutesOf<L extends readonly unknown[]> = {
  [C in L[number] as C extends { bus: { verb: infer V extends string } } ? V : never]: C extends {
    route: infer R extends Route;
  }
    ? R
    : never;
};

/** The routes of a service's capabilities by verb, for its part of the routes table (routes.ts). */
export function routesOf<const L extends readonly ApiCapability[]>(capabilities: L): RoutesOf<L> {
  const table: Record<string, Route> = {};
  for (const { bus, route: answered } of capabilities) if (bus && answered) table[bus.verb] = answered;
  return table as RoutesOf<L>;
}

/** Tool annotations most capabilities share. */
export const READ: ToolHints = { readOnlyHint: true, openWorldHint: false };
export const WRITE: ToolHints = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
/** A write that, made twice, leaves things as made once: a change of fields, a switch. */
export const IDEMPOTENT_WRITE: ToolHints = { ...WRITE, idempotentHint: true };
/** It takes away what was there: a deleted task or recording, a bot sent out of its meeting. */
export const DESTRUCTIVE: ToolHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

/** Pieces of the tools' texts: `2 things`, and `2 things: a, b` (no list when there are none). */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const listed = <T>(one: string, items: T[], nameOf: (item: T) => string) =>
  `${count(items.length, one)}${items.length ? `: ${items.map(nameOf).join(', ')}` : ''}`;
