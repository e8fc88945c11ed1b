import type { z } from 'zod';
import { parseOrBadRequest } from '@notetaker/contracts';

/** Bus requests are outside input too: a malformed one is a 400 naming the field. */
export function parseRequest<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  return parseOrBadRequest(schema, data);
}
