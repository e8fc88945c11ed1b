/**
 * CSRF protection for every state-changing request of the web application: the form (or an
 * `X-CSRF-Token` header) must carry the token of the signed-in session, or for the signed-out
 * forms the token of the `nt_csrf` cookie (double submit). SameSite=Lax cookies are the second
 * line; the token is the one that holds for every browser.
 */
import crypto from 'node:crypto';
import type { Context } from 'koa';
import { errors } from '@notetaker/contracts';
import type { WebConfig } from './config.js';
import { ANON_CSRF_COOKIE, readCookie, writeCookie } from './cookies.js';
import { randomToken } from './sign-ins.js';

export const CSRF_FIELD = '_csrf';

export function tokensEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && a.length > 0 && crypto.timingSafeEqual(a, b);
}

/** The signed-out forms' token: the one in the cookie, or a new one set now. */
export function anonymousCsrfToken(ctx: Context, config: WebConfig): string {
  const existing = readCookie(ctx, ANON_CSRF_COOKIE);
  if (existing) return existing;
  const token = randomToken();
  writeCookie(ctx, config, ANON_CSRF_COOKIE, token);
  return token;
}

/** Throws 403 unless the request carries `expected`. */
export function requireCsrf(ctx: Context, form: URLSearchParams, expected: string | null): void {
  const presented = form.get(CSRF_FIELD) ?? ctx.get('x-csrf-token');
  if (!expected || !presented || !tokensEqual(presented, expected)) {
    throw errors.forbidden('This form has expired or was not sent from this site. Reload the page and try again.');
  }
}
