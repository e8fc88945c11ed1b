/**
 * Errors of the web pages become pages, not JSON: a 404 for what does not exist (or is not this
 * account's), the 403 of a missing CSRF token with what to do, "service unavailable" when a
 * service behind us is not answering, and for anything unexpected a generic page with the
 * request id (the details go to the log only).
 */
import http from 'node:http';
import type { Middleware } from 'koa';
import { ServiceError } from '@notetaker/contracts';
import { isUnavailable } from './backend.js';
import type { SignedIn, WebDeps } from './context.js';
import { html } from './html.js';
import { sendPage } from './layout.js';

export function webErrors(deps: WebDeps): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent) throw err;
      const requestId = String(ctx.state.requestId ?? '');
      let status = err instanceof ServiceError ? err.status : ((err as { status?: number }).status ?? 500);
      if (!(err instanceof ServiceError) && !(err as { expose?: boolean }).expose) status = 500;
      let title: string;
      let message: string;
      if (isUnavailable(err)) {
        status = 503;
        title = 'Service unavailable';
        message = 'A service this page needs is not answering right now. Try again in a moment.';
      } else if (status === 404) {
        title = 'Not found';
        message = 'There is nothing here, or it is not yours to see.';
      } else if (status < 500) {
        title = http.STATUS_CODES[status] ?? 'Error';
        message = (err as Error).message || title;
      } else {
        status = 500;
        deps.logger.error({ err, requestId, method: ctx.method, path: ctx.path }, 'web page failed');
        title = 'Something went wrong';
        message = `The page could not be shown (request ${requestId}).`;
      }
      const signed = ctx.state.web as SignedIn | undefined;
      sendPage(
        ctx,
        { title, account: signed?.account ?? null, csrf: signed?.session.csrfToken ?? '' },
        html`<article class="narrow">
          <h1>${title}</h1>
          <p role="alert">${message}</p>
          <p><a href="${signed ? '/meetings' : '/signin'}">${signed ? 'Back to meetings' : 'Go to sign-in'}</a></p>
        </article>`,
        status,
      );
    }
  };
}
