import type { z } from 'zod';
import { parseOrBadRequest } from '@notetaker/contracts';

/** Parses outside input with a contract schema; a failure is a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return parseOrBadRequest(schema, value ?? {});
}
