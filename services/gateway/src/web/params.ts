/** Path parameters of the web pages, checked before they reach a subject or a service. */
import type { Context } from 'koa';
import { errors, MEETING_ID, PROJECT_ID, TASK_NAME } from '@notetaker/contracts';

function param(ctx: Context, name: string, pattern: RegExp): string {
  const value = String(ctx.params[name] ?? '');
  if (!pattern.test(value)) throw errors.notFound();
  return value;
}

export const meetingIdParam = (ctx: Context) => param(ctx, 'meetingId', MEETING_ID);
export const projectIdParam = (ctx: Context) => param(ctx, 'projectId', PROJECT_ID);
export const taskNameParam = (ctx: Context) => param(ctx, 'name', TASK_NAME);

/**
 * Which form field a service's 400 is about: our services' messages start with the field's name
 * ("url must be…", "cronExpression must…"); anything else is shown for the whole form.
 */
export function fieldOfMessage<F extends string>(message: string, fields: readonly F[]): F | null {
  const first = /^([A-Za-z]+)\b/.exec(message)?.[1];
  return fields.find((f) => f === first) ?? null;
}
