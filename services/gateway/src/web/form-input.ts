/**
 * A form's input checked by the operation's own input schema, the one REST and MCP validate with:
 * no page checks a field by hand, so the web, REST and MCP answer the same bad input with the same
 * words. Each of zod's issues becomes the message next to its field, worded as REST's 400 words it
 * when that field is the first one wrong (`firstIssueMessage`); a form shows them all at once.
 */
import { z } from 'zod';
import { firstIssueMessage } from '@notetaker/contracts';

export type CheckedForm<T> = { ok: true; input: T } | { ok: false; errors: Record<string, string> };

export function checkForm<S extends z.ZodType>(schema: S, raw: unknown): CheckedForm<z.infer<S>> {
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, input: result.data };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const top = issue.path[0];
    errors[typeof top === 'string' ? top : ''] ??= firstIssueMessage(new z.ZodError([issue]));
  }
  return { ok: false, errors };
}

/**
 * The errors of `checked` placed on the form's `fields`; an issue of a field the form does not
 * show (or of the whole input) becomes the form's own error.
 */
export function placeErrors<F extends string>(
  errors: Record<string, string>,
  fields: readonly F[],
  into: Partial<Record<F | 'form', string>>,
): void {
  for (const [name, message] of Object.entries(errors)) {
    const field = fields.find((f) => f === name) ?? 'form';
    into[field] ??= message;
  }
}
