/**
 * First-run setup, sign-in and sign-out. The signed-out forms carry the double-submit CSRF token
 * of the `nt_csrf` cookie; a sign-in starts a new session (a fresh id, never the one the browser
 * came with) and the lock-out counts every attempt before the password is checked.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ServiceError } from '@notetaker/contracts';
import { accountProblems, PASSWORD_LENGTH } from '../../identity/accounts.js';
import type { WebDeps } from '../context.js';
import { ANON_CSRF_COOKIE, clearCookie, readCookie, SESSION_COOKIE, writeCookie } from '../cookies.js';
import { anonymousCsrfToken, requireCsrf } from '../csrf.js';
import { field, readForm } from '../form-body.js';
import { requireSignIn, safeNext, signedInForm } from '../guards.js';
import { html } from '../html.js';
import { csrfInput, formError, inputField, sendPage } from '../layout.js';
import { noticeFrom, redirect } from '../notices.js';

interface SetupValues {
  email: string;
  errors: { email?: string; password?: string; confirm?: string; form?: string };
}

interface SigninValues {
  email: string;
  next: string | null;
  errors: { email?: string; password?: string; form?: string };
}

export function authPages(router: Router, deps: WebDeps): void {
  const renderSetup = (ctx: Context, values: SetupValues, status = 200) => {
    const csrf = anonymousCsrfToken(ctx, deps.config);
    sendPage(
      ctx,
      { title: 'Set up', account: null, csrf },
      html`<article class="narrow">
        <h1>Welcome</h1>
        <p>
          No account exists yet. Create the owner account: it signs in to this application and creates the API tokens
          that programs use.
        </p>
        <form method="post" action="/setup" novalidate>
          ${csrfInput(csrf)} ${formError(values.errors.form)}
          ${inputField({ name: 'email', label: 'Email', type: 'email', value: values.email, error: values.errors.email, required: true, autocomplete: 'username' })}
          ${inputField({ name: 'password', label: 'Password', type: 'password', error: values.errors.password, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_LENGTH.min} characters.` })}
          ${inputField({ name: 'confirm', label: 'Repeat the password', type: 'password', error: values.errors.confirm, required: true, autocomplete: 'new-password' })}
          <button type="submit">Create the owner account</button>
        </form>
      </article>`,
      status,
    );
  };

  const renderSignin = (ctx: Context, values: SigninValues, status = 200) => {
    const csrf = anonymousCsrfToken(ctx, deps.config);
    sendPage(
      ctx,
      { title: 'Sign in', account: null, csrf, notice: noticeFrom(ctx) },
      html`<article class="narrow">
        <h1>Sign in</h1>
        <form method="post" action="/signin" novalidate>
          ${csrfInput(csrf)} ${values.next && html`<input type="hidden" name="next" value="${values.next}" />`}
          ${formError(values.errors.form)}
          ${inputField({ name: 'email', label: 'Email', type: 'email', value: values.email, error: values.errors.email, required: true, autocomplete: 'username' })}
          ${inputField({ name: 'password', label: 'Password', type: 'password', error: values.errors.password, required: true, autocomplete: 'current-password' })}
          <button type="submit">Sign in</button>
        </form>
      </article>`,
      status,
    );
  };

  const startSession = async (ctx: Context, accountId: string) => {
    await deps.signIns.destroy(readCookie(ctx, SESSION_COOKIE));
    const { cookie } = await deps.signIns.create(accountId);
    writeCookie(ctx, deps.config, SESSION_COOKIE, cookie);
  };

  router.get('/setup', async (ctx) => {
    if (!(await deps.setup.open())) return redirect(ctx, '/signin');
    renderSetup(ctx, { email: '', errors: {} });
  });

  router.post('/setup', async (ctx) => {
    const form = await readForm(ctx);
    requireCsrf(ctx, form, readCookie(ctx, ANON_CSRF_COOKIE));
    if (!(await deps.setup.open())) return redirect(ctx, '/signin');
    const email = field(form, 'email', 254);
    const password = form.get('password') ?? '';
    const errors: SetupValues['errors'] = accountProblems(email, password);
    if (!errors.password && password !== (form.get('confirm') ?? '')) errors.confirm = 'The two passwords differ.';
    if (Object.keys(errors).length > 0) return renderSetup(ctx, { email, errors }, 400);
    if (!(await deps.setup.claim())) return redirect(ctx, '/signin');
    let accountId: string;
    try {
      accountId = (await deps.accounts.create(email, password)).id;
    } catch (err) {
      await deps.setup.release();
      if (err instanceof ServiceError && err.status < 500) {
        return renderSetup(ctx, { email, errors: { email: err.message } }, err.status);
      }
      throw err;
    }
    await startSession(ctx, accountId);
    redirect(ctx, '/meetings');
  });

  router.get('/signin', async (ctx) => {
    if (await deps.setup.open()) return redirect(ctx, '/setup');
    const next = safeNext(ctx.query.next);
    const found = await deps.signIns.lookup(readCookie(ctx, SESSION_COOKIE));
    if (found.state === 'active') return redirect(ctx, next ?? '/meetings');
    renderSignin(ctx, { email: '', next, errors: {} });
  });

  router.post('/signin', async (ctx) => {
    const form = await readForm(ctx);
    requireCsrf(ctx, form, readCookie(ctx, ANON_CSRF_COOKIE));
    const email = field(form, 'email', 254);
    const password = form.get('password') ?? '';
    const next = safeNext(form.get('next'));
    const errors: SigninValues['errors'] = {};
    if (!email) errors.email = 'Enter your email address.';
    if (!password) errors.password = 'Enter your password.';
    if (Object.keys(errors).length > 0) return renderSignin(ctx, { email, next, errors }, 400);

    const verdict = await deps.throttle.attempt(email, ctx.ip);
    if (!verdict.allowed) {
      const minutes = Math.max(1, Math.ceil(verdict.retryAfterMs / 60_000));
      ctx.set('Retry-After', String(Math.ceil(verdict.retryAfterMs / 1000)));
      const form = `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
      return renderSignin(ctx, { email, next, errors: { form } }, 429);
    }
    const account = await deps.accounts.verify(email, password);
    if (!account) {
      return renderSignin(ctx, { email, next, errors: { password: 'The email or the password is not right.' } }, 401);
    }
    await deps.throttle.succeeded(email, ctx.ip);
    await startSession(ctx, account.id);
    redirect(ctx, next ?? '/meetings');
  });

  router.post('/signout', requireSignIn(deps), signedInForm(), async (ctx) => {
    await deps.signIns.destroy(readCookie(ctx, SESSION_COOKIE));
    clearCookie(ctx, deps.config, SESSION_COOKIE);
    redirect(ctx, '/signin', 'signed-out');
  });

  router.get('/', requireSignIn(deps), (ctx) => redirect(ctx, '/meetings'));
}
