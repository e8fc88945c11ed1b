/**
 * Account settings -> Bot accounts, for the owner account only: the dedicated platform accounts
 * the bots sign in with (the CLI's `bot-account add|list|remove` do the same). The session file is
 * read by the browser into the form's `session` field (app.js; the form is urlencoded like every
 * other, so no multipart parser is needed) and is never rendered back, not even after an error.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import {
  errors,
  platform as platformSchema,
  PLATFORM_NAMES,
  ServiceError,
  type BotAccountInfo,
  type Platform,
} from '@notetaker/contracts';
import { MAX_MEETINGS_PER_ACCOUNT, meetingsInUse } from '../../identity/bot-account-store.js';
import { MAX_STORAGE_STATE_BYTES } from '../../identity/storage-state-file.js';
import { PAGE_REQUEST_TIMEOUT_MS } from '../backend.js';
import { chrome, formOf, isOwner, signedIn, type WebDeps } from '../context.js';
import { field, MAX_FORM_BYTES } from '../form-body.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html } from '../html.js';
import {
  confirmedAction,
  csrfInput,
  fieldMessages,
  formError,
  inputField,
  selectField,
  sendPage,
  stackedTable,
  time,
} from '../layout.js';
import { redirect } from '../notices.js';
import { settingsNav } from './settings-nav.js';

// Urlencoding turns each quote or brace of a JSON file into three bytes.
const MAX_ADD_FORM_BYTES = 3 * MAX_STORAGE_STATE_BYTES + MAX_FORM_BYTES;

type FieldName = 'platform' | 'name' | 'maxMeetings' | 'session';

interface AddValues {
  platform: string;
  name: string;
  maxMeetings: string;
  errors: Partial<Record<FieldName | 'form', string>>;
}

/** The platform select's [value, label]s, in the schema's order. */
const PLATFORM_CHOICES = platformSchema.options.map((p) => [p, PLATFORM_NAMES[p]] as const);

const EMPTY: AddValues = { platform: 'google_meet', name: '', maxMeetings: '1', errors: {} };

function ownerOnly(deps: WebDeps): Middleware {
  return async (ctx, next) => {
    if (!(await isOwner(ctx, deps))) {
      throw errors.forbidden('Only the owner account (the first one, made at setup) manages bot accounts.');
    }
    return next();
  };
}

export function botAccountPages(router: Router, deps: WebDeps): void {
  const guard = [requireSignIn(deps), ownerOnly(deps)];

  const render = async (ctx: Context, values: AddValues, status = 200) => {
    const csrf = signedIn(ctx).session.csrfToken;
    const [accounts, inUse] = await Promise.all([
      deps.botAccounts.list(),
      meetingsInUse(deps.bus, PAGE_REQUEST_TIMEOUT_MS),
    ]);
    sendPage(
      ctx,
      chrome(ctx, 'Bot accounts', 'settings'),
      html`${settingsNav('bot-accounts', true)}
        <h1>Bot accounts</h1>
        <p>
          Dedicated platform accounts the bots sign in with, for meetings that refuse guests: a Google account for
          Google Meet, a Microsoft work or school account for Teams. Make the session file on a desktop with
          <code>npm run cli -- bot-account login</code> (or export the signed-in browser’s cookies), add it here, then
          delete the file. The session is stored encrypted and never shown again.
        </p>
        ${accounts.length === 0 ? html`<p>No bot accounts yet.</p>` : accountTable(accounts, inUse, csrf)}
        <section aria-labelledby="add-heading">
          <h2 id="add-heading">Add a bot account</h2>
          <form method="post" action="/settings/bot-accounts" novalidate>
            ${csrfInput(csrf)} ${formError(values.errors.form)}
            ${selectField({ name: 'platform', label: 'Platform', choices: PLATFORM_CHOICES, value: values.platform, error: values.errors.platform, required: true })}
            ${inputField({ name: 'name', label: 'Name', value: values.name, error: values.errors.name, required: true, maxlength: 100, hint: 'A label for the account, e.g. “Notetaker bot 1”.', attrs: html` autocomplete="off"` })}
            ${inputField({ name: 'maxMeetings', label: 'Meetings at once', type: 'number', value: values.maxMeetings, error: values.errors.maxMeetings, required: true, inputmode: 'numeric', hint: `How many meetings one account may be in at the same time (1 to ${MAX_MEETINGS_PER_ACCOUNT}).`, attrs: html` min="1" max="${MAX_MEETINGS_PER_ACCOUNT}"` })}
            <label for="f-session-file">Session file</label>
            <input
              id="f-session-file"
              type="file"
              accept=".json,application/json"
              data-session-into="f-session"
              data-max-bytes="${MAX_STORAGE_STATE_BYTES}"
              aria-describedby="${values.errors.session ? 'f-session-error f-session-hint' : 'f-session-hint'}"
              ${values.errors.session ? html` aria-invalid="true"` : ''}
            />
            ${fieldMessages('f-session', values.errors.session, 'Playwright’s storageState JSON, or a JSON array of cookies; at most 1 MB.')}
            <details>
              <summary>Or paste the file’s contents</summary>
              <textarea
                id="f-session"
                name="session"
                rows="4"
                spellcheck="false"
                autocomplete="off"
                aria-label="Session file contents"
              ></textarea>
            </details>
            <button type="submit">Add bot account</button>
          </form>
        </section>`,
      status,
    );
  };

  router.get('/settings/bot-accounts', ...guard, (ctx) => render(ctx, { ...EMPTY, errors: {} }));

  router.post(
    '/settings/bot-accounts',
    ...guard,
    signedInForm(MAX_ADD_FORM_BYTES, 'The session file is over 1 MB'),
    async (ctx) => {
      const form = formOf(ctx);
      const values: AddValues = {
        platform: field(form, 'platform', 40),
        name: field(form, 'name', 200),
        maxMeetings: field(form, 'maxMeetings', 20),
        errors: {},
      };
      const sessionText = form.get('session') ?? '';
      if (!sessionText.trim()) values.errors.session = 'Choose the session file (or paste its contents).';
      if (!/^\d{1,3}$/.test(values.maxMeetings)) {
        values.errors.maxMeetings = `Enter a whole number from 1 to ${MAX_MEETINGS_PER_ACCOUNT}.`;
      }
      if (Object.keys(values.errors).length > 0) return render(ctx, values, 400);
      try {
        await deps.botAccounts.add({
          platform: values.platform,
          name: values.name,
          storageStateText: sessionText,
          maxMeetings: Number(values.maxMeetings),
        });
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        const where: FieldName | 'form' =
          err.status === 409 ? 'name' : ((err.field as FieldName | undefined) ?? 'form');
        return render(ctx, { ...values, errors: { [where]: err.message } }, err.status);
      }
      redirect(ctx, '/settings/bot-accounts', 'bot-account-added');
    },
  );

  router.post('/settings/bot-accounts/:id/remove', ...guard, signedInForm(), async (ctx) => {
    try {
      await deps.botAccounts.remove(String(ctx.params.id));
    } catch (err) {
      // Removed already (another tab): the outcome the person asked for.
      if (!(err instanceof ServiceError && err.status === 404)) throw err;
    }
    redirect(ctx, '/settings/bot-accounts', 'bot-account-removed');
  });
}

function accountTable(accounts: BotAccountInfo[], inUse: Record<string, number>, csrf: string) {
  return stackedTable({
    caption: 'Bot accounts',
    columns: ['Name', 'Platform', 'Status', 'Max meetings', 'In use', 'Last used', 'Signed in as'],
    actions: true,
    rows: accounts.map(
      (a) =>
        html`<tr data-bot-account-id="${a.id}">
          <th scope="row">${a.name}</th>
          <td data-label="Platform">${PLATFORM_NAMES[a.platform as Platform]}</td>
          <td data-label="Status">
            ${
              a.status === 'active'
                ? html`<span class="badge active">Active</span>`
                : html`<span class="badge signed-out">Signed out</span>
                    <small>The platform no longer accepts its session: remove it and add a new one.</small>`
            }
          </td>
          <td data-label="Max meetings">${a.maxMeetings}</td>
          <td data-label="In use">${inUse[a.id] ?? 0}</td>
          <td data-label="Last used">${time(a.lastUsedAt, 'never')}</td>
          <td data-label="Signed in as">${a.identity ?? html`<span class="muted">not seen yet</span>`}</td>
          <td>
            ${confirmedAction({
              action: `/settings/bot-accounts/${a.id}/remove`,
              confirm: `Remove the bot account “${a.name}”? Its session is deleted; bots stop signing in with it.`,
              verb: 'Remove',
              name: a.name,
              csrf,
            })}
          </td>
        </tr>`,
    ),
  });
}
