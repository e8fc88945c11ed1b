/**
 * The address clients reach the gateway at, for the few answers that carry an absolute link (a
 * recording's download URL). `PUBLIC_URL` when the operator set it (behind a proxy that rewrites
 * the Host, or on another path prefix); otherwise the request's own origin: the Host it was sent
 * to, and https when it arrived over TLS or a proxy says so in `X-Forwarded-Proto`. Either way the
 * link goes back to the client that asked, no one else.
 */
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { envString, parseEnv } from '@notetaker/config';

export const publicUrlEnvSchema = z.object({
  /** `https://notes.example.com` (a path prefix is kept): the base of absolute links in answers. */
  PUBLIC_URL: envString.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://notes.example.com' }).optional(),
  ),
});

/** PUBLIC_URL without its trailing slash, or null when unset. */
export function loadPublicUrl(env: NodeJS.ProcessEnv): string | null {
  const url = parseEnv(publicUrlEnvSchema, env).PUBLIC_URL;
  return url ? url.replace(/\/+$/, '') : null;
}

/** The request came over https: directly, or per a TLS-terminating proxy's X-Forwarded-Proto. */
export function isHttps(ctx: Context): boolean {
  if (ctx.secure) return true;
  return ctx.get('x-forwarded-proto').split(',')[0].trim().toLowerCase() === 'https';
}

/** Puts the configured base (if any) where `baseUrlOf` finds it, for every route after it. */
export function publicUrl(configured: string | null): Middleware {
  return (ctx, next) => {
    if (configured) ctx.state.publicUrl = configured;
    return next();
  };
}

/** `https://host[:port]` (or PUBLIC_URL): what an absolute link in this request's answer starts with. */
export function baseUrlOf(ctx: Context): string {
  const configured = ctx.state.publicUrl as string | undefined;
  return configured ?? `${isHttps(ctx) ? 'https' : 'http'}://${ctx.host}`;
}
