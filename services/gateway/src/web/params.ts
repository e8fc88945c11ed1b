/** Path parameters of the web pages, checked before they reach a subject or a service. */
import type { Context } from 'koa';
import { errors, MEETING_ID, PROJECT_ID, TASK_NAME, type ServiceError } from '@notetaker/contracts';

function param(ctx: Context, name: string, pattern: RegExp): string {
  const value = String(ctx.params[name] ?? '');
  if (!pattern.test(value)) throw errors.notFound();
  return value;
}

export const meetingIdParam = (ctx: Context) => param(ctx, 'meetingId', MEETING_ID);
export const projectIdParam = (ctx: Context) => param(ctx, 'projectId', PROJECT_ID);
export const taskNameParam = (ctx: Context) => param(ctx, 'name', TASK_NAME);

/** Which of a form's fields a service's 400 is about (the error names it), else null: the whole form. */
export function formFieldOf<F extends string>(error: ServiceError, fields: readonly F[]): F | null {
  return fields.find((f) => f === error.field) ?? null;
}
