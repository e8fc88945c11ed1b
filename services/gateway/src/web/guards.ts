/**
 * Route guards: a signed-in session for every page but setup and sign-in, and a read, CSRF-checked
 * form for every state-changing request.
 */
import type { Context, Middleware } from 'koa';
import type { WebDeps } from './context.js';
import { clearCookie, readCookie, SESSION_COOKIE } from './cookies.js';
import { requireCsrf } from './csrf.js';
import { MAX_FORM_BYTES, readForm } from './form-body.js';

/** A local path to come back to after signing in; anything else (another host, `//x`) is dropped. */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  if (/[\u0000-\u001f]/.test(value)) return null;
  if (/^\/(signin|setup|signout)(\/|\?|$)/.test(value)) return null;
  return value;
}

export function requireSignIn(deps: WebDeps): Middleware {
  return async (ctx, next) => {
    const cookie = readCookie(ctx, SESSION_COOKIE);
    const found = await deps.signIns.lookup(cookie);
    const account = found.state === 'active' ? await deps.accounts.get(found.session.accountId) : null;
    if (found.state === 'active' && account) {
      ctx.state.web = { account, session: found.session };
      return next();
    }
    if (found.state === 'active') await deps.signIns.destroy(cookie);
    if (cookie) clearCookie(ctx, deps.config, SESSION_COOKIE);
    return signInFirst(ctx, deps, found.state !== 'none');
  };
}

async function signInFirst(ctx: Context, deps: WebDeps, expired: boolean): Promise<void> {
  if (await deps.setup.open()) {
    ctx.status = 303;
    return ctx.redirect('/setup');
  }
  const params = new URLSearchParams();
  const back = ctx.method === 'GET' ? safeNext(ctx.originalUrl) : null;
  if (back && back !== '/') params.set('next', back);
  if (expired) params.set('notice', 'expired');
  const location = `/signin${params.size ? `?${params}` : ''}`;
  // htmx swaps a fragment; make it navigate the whole page to the sign-in form instead.
  if (ctx.get('hx-request')) {
    ctx.status = 401;
    ctx.set('HX-Redirect', location);
    ctx.body = '';
    return;
  }
  if (ctx.accepts('html', 'text/event-stream') === 'text/event-stream') {
    ctx.status = 401;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = 'Sign in first';
    return;
  }
  ctx.status = 303;
  ctx.redirect(location);
}

/**
 * Reads the form of a signed-in POST and checks its CSRF token against the session's. A form that
 * carries a file's text takes a larger `limit`, with `tooLarge` saying what was too large.
 */
export function signedInForm(limit = MAX_FORM_BYTES, tooLarge?: string): Middleware {
  return async (ctx, next) => {
    const form = await readForm(ctx, limit, tooLarge);
    requireCsrf(ctx, form, (ctx.state.web as { session: { csrfToken: string } }).session.csrfToken);
    ctx.state.form = form;
    return next();
  };
}
