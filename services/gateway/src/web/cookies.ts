/**
 * Our two cookies, written by hand so every attribute is ours: HttpOnly, SameSite=Lax, Path=/,
 * and Secure whenever the browser reached us over https (Koa's own cookie writer refuses Secure
 * behind a TLS-terminating proxy unless the whole app trusts proxy headers).
 */
import type { Context } from 'koa';
import { isHttps } from '../http/public-url.js';
import type { WebConfig } from './config.js';

export const SESSION_COOKIE = 'nt_session';
/** Double-submit token of the signed-out forms (setup, sign-in): no session holds one yet. */
export const ANON_CSRF_COOKIE = 'nt_csrf';

const COOKIE_VALUE = /^[A-Za-z0-9_-]{16,128}$/;

export function readCookie(ctx: Context, name: string): string | null {
  const value = ctx.cookies.get(name);
  return value && COOKIE_VALUE.test(value) ? value : null;
}

export function writeCookie(
  ctx: Context,
  config: WebConfig,
  name: string,
  value: string,
  maxAgeSeconds?: number,
): void {
  // A forged X-Forwarded-Proto can only make the cookie stricter.
  const secure = config.cookieSecure === 'always' || (config.cookieSecure === 'auto' && isHttps(ctx));
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: Context, config: WebConfig, name: string): void {
  writeCookie(ctx, config, name, '', 0);
}
