import type { z } from 'zod';
import { errors, firstIssueMessage } from '@notetaker/contracts';

/** Bus requests are outside input too: a malformed one is a 400 naming the field. */
export function parseRequest<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw errors.badRequest(firstIssueMessage(result.error));
  return result.data;
}
