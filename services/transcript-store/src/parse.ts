import type { z } from 'zod';
import { parseOrBadRequest } from '@notetaker/contracts';

/** A bus request that does not match its contract is the caller's bug: 400 naming the field. */
export function parseMessage<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  return parseOrBadRequest(schema, data);
}
