/**
 * Account settings -> Accounts: every account of this instance, and a form with which a signed-in
 * account adds another (the CLI's `account create` does the same). Each account then sees only
 * its own API tokens.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ServiceError } from '@notetaker/contracts';
import { accountProblems, PASSWORD_LENGTH } from '../../identity/accounts.js';
import { chrome, formOf, isOwner, signedIn, type WebDeps } from '../context.js';
import { field } from '../form-body.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html } from '../html.js';
import { csrfInput, inputField, sendPage, time } from '../layout.js';
import { redirect } from '../notices.js';
import { settingsNav } from './settings-nav.js';

interface AddValues {
  email: string;
  errors: { email?: string; password?: string };
}

export function accountPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  const render = async (ctx: Context, values: AddValues, status = 200) => {
    const { account, session } = signedIn(ctx);
    const accounts = await deps.accounts.list();
    sendPage(
      ctx,
      chrome(ctx, 'Accounts', 'settings'),
      html`${settingsNav('accounts', await isOwner(ctx, deps))}
        <h1>Accounts</h1>
        <div class="overflow-auto">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              ${accounts.map(
                (a) =>
                  html`<tr>
                    <td>${a.email}${a.id === account.id && html` <span class="muted">(you)</span>`}</td>
                    <td>${time(a.createdAt)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <section aria-labelledby="add-heading">
          <h2 id="add-heading">Add an account</h2>
          <form method="post" action="/settings/accounts" novalidate>
            ${csrfInput(session.csrfToken)}
            ${inputField({ name: 'email', label: 'Email', type: 'email', value: values.email, error: values.errors.email, required: true, autocomplete: 'off' })}
            ${inputField({ name: 'password', label: 'Initial password', type: 'password', error: values.errors.password, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_LENGTH.min} characters. Give it to the person in a safe way.` })}
            <button type="submit">Add account</button>
          </form>
        </section>`,
      status,
    );
  };

  router.get('/settings/accounts', auth, (ctx) => render(ctx, { email: '', errors: {} }));

  router.post('/settings/accounts', auth, signedInForm(), async (ctx) => {
    const form = formOf(ctx);
    const email = field(form, 'email', 254);
    const password = form.get('password') ?? '';
    const errors: AddValues['errors'] = accountProblems(email, password);
    if (Object.keys(errors).length > 0) return render(ctx, { email, errors }, 400);
    try {
      await deps.accounts.create(email, password);
    } catch (err) {
      if (err instanceof ServiceError && err.status < 500) {
        return render(ctx, { email, errors: { email: err.message } }, err.status);
      }
      throw err;
    }
    redirect(ctx, '/settings/accounts', 'account-created');
  });
}
