/** Errors (docs/api/reference.md#errors): the error body; outside input parsed into a 400 naming the field. */
import { z } from 'zod';
import { errors } from '../errors.js';

export const errorBody = z.object({ error: z.string() });

/**
 * Outside input (a REST body, a query, a bus request) parsed by its contract schema; a failure is
 * a 400 whose message names the field, and which carries it (`field`) for a form to show it there.
 */
export function parseOrBadRequest<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const top = result.error.issues[0]?.path[0];
  throw errors.badRequest(firstIssueMessage(result.error), typeof top === 'string' ? top : undefined);
}

/** The first issue's message is the answer: it names the field that is wrong. */
export function firstIssueMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${issue.keys.join(', ')}`;
  const field = issue.path.join('.');
  if (issue.message.startsWith('Invalid input') && field) return `${field} is invalid`;
  return issue.message;
}
