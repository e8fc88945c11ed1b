/**
 * HTML form bodies (application/x-www-form-urlencoded), read with a small limit: our forms carry
 * a few short fields, and an anonymous visitor must not make us buffer more.
 */
import type { Context } from 'koa';
import { errors } from '@notetaker/contracts';

export const MAX_FORM_BYTES = 64 * 1024;

export async function readForm(ctx: Context, limit = MAX_FORM_BYTES, tooLarge?: string): Promise<URLSearchParams> {
  if (Number(ctx.get('content-length') || 0) > limit) throw errors.payloadTooLarge(tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw errors.payloadTooLarge(tooLarge);
    chunks.push(chunk as Buffer);
  }
  if (size > 0 && !ctx.is('application/x-www-form-urlencoded')) {
    throw errors.badRequest('Content-Type must be application/x-www-form-urlencoded');
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** One trimmed text field ('' when absent), cut at `max` characters so nothing huge is echoed back. */
export function field(form: URLSearchParams, name: string, max = 4096): string {
  return (form.get(name) ?? '').trim().slice(0, max);
}
