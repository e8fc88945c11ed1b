/**
 * One capability of the API, served alike by REST (/api/v1) and by MCP tools (/mcp): the schema its
 * input is validated with, the schema of the body it answers, and the bus calls that answer it.
 * REST routes and tools both call `run`, so the two interfaces cannot drift apart in behaviour.
 */
import type { z } from 'zod';
import type { Bus } from '@notetaker/bus';
import type { Caller } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** The arguments, as one object (REST gathers them from the path, the query and the body). */
  input: I;
  /** The REST response body; an MCP tool's structuredContent. */
  output: O;
  run(bus: Bus, caller: Caller, input: z.infer<I>): Promise<z.infer<O>>;
}

export function operation<I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

/** Validates raw arguments with the operation's schema (a 400 naming the field), then runs it. */
export function perform<I extends z.ZodType, O extends z.ZodType>(
  op: Operation<I, O>,
  bus: Bus,
  caller: Caller,
  raw: unknown,
): Promise<z.infer<O>> {
  return op.run(bus, caller, parseInput(op.input, raw));
}
