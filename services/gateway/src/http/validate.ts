import type { z } from 'zod';
import { errors, firstIssueMessage } from '@notetaker/contracts';

/** Parses outside input with a contract schema; a failure is a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw errors.badRequest(firstIssueMessage(result.error));
  return result.data;
}
