/**
 * Account settings -> API Tokens (docs/api/reference.md#authentication): the account's own
 * tokens, Create Token (a name and capabilities), and Revoke. A new token's key and signing secret travel from the create request
 * to the next page as a sealed one-time flash in the session: shown once, with a 303 in between so
 * a reload never creates a second token, and gone from then on.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { CAPABILITIES, ServiceError, type Capability } from '@notetaker/contracts';
import type { TokenInfo } from '../../identity/tokens.js';
import { chrome, formOf, isOwner, signedIn, type WebDeps } from '../context.js';
import { field } from '../form-body.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html } from '../html.js';
import { confirmedAction, csrfInput, fieldMessages, inputField, sendPage, stackedTable, time } from '../layout.js';
import { redirect } from '../notices.js';
import { settingsNav } from './settings-nav.js';

const CAPABILITY_HELP: Record<Capability, string> = {
  'knowledge:write': 'Save meeting transcripts into projects (needed to start a meeting with saveTranscript).',
};

interface CreatedFlash {
  kind: 'created-token';
  name: string;
  apiKey: string;
  signingSecret: string;
}

interface CreateValues {
  name: string;
  capabilities: Capability[];
  errors: { name?: string; capabilities?: string };
}

export function tokenPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  const renderList = async (ctx: Context, values: CreateValues, status = 200) => {
    const { account, session } = signedIn(ctx);
    const tokens = await deps.tokens.list(account.id);
    sendPage(
      ctx,
      chrome(ctx, 'API Tokens', 'settings'),
      html`${settingsNav('tokens', await isOwner(ctx, deps))}
<h1>API Tokens</h1>
<p>Programs call the REST API with a token’s key. A token sees only the meetings it started.</p>
${tokens.length === 0 ? html`<p>You have no tokens yet.</p>` : tokenTable(tokens, session.csrfToken)}
<section aria-labelledby="create-heading">
<h2 id="create-heading">Create Token</h2>
<form method="post" action="/settings/tokens" novalidate>
${csrfInput(session.csrfToken)}
${inputField({ name: 'name', label: 'Name', value: values.name, error: values.errors.name, required: true, maxlength: 100, hint: 'What uses it, e.g. “CRM sync”.' })}
<fieldset${values.errors.capabilities ? html` aria-invalid="true" aria-describedby="f-capabilities-error"` : ''}>
<legend>Capabilities</legend>
${CAPABILITIES.map(
  (cap) =>
    html`<label
        ><input
          type="checkbox"
          name="capabilities"
          value="${cap}"
          ${values.capabilities.includes(cap) ? html` checked` : ''}
          aria-describedby="cap-${cap.replace(':', '-')}-help"
        />
        <code>${cap}</code></label
      >
      <small id="cap-${cap.replace(':', '-')}-help">${CAPABILITY_HELP[cap]}</small>`,
)}
${fieldMessages('f-capabilities', values.errors.capabilities, null)}
</fieldset>
<p><small>Capabilities are fixed when the token is created and cannot be widened later.</small></p>
<button type="submit">Create Token</button>
</form>
</section>`,
      status,
    );
  };

  router.get('/settings/tokens', auth, (ctx) =>
    renderList(ctx, { name: '', capabilities: ['knowledge:write'], errors: {} }),
  );

  router.post('/settings/tokens', auth, signedInForm(), async (ctx) => {
    const form = formOf(ctx);
    const name = field(form, 'name', 200);
    const requested = form.getAll('capabilities');
    const capabilities = CAPABILITIES.filter((c) => requested.includes(c));
    const errors: CreateValues['errors'] = {};
    if (!name) errors.name = 'Give the token a name.';
    else if (name.length > 100) errors.name = 'The name can have at most 100 characters.';
    if (requested.some((c) => !(CAPABILITIES as readonly string[]).includes(c))) {
      errors.capabilities = 'Choose capabilities from the list.';
    }
    if (Object.keys(errors).length > 0) return renderList(ctx, { name, capabilities, errors }, 400);
    const { account, session } = signedIn(ctx);
    const created = await deps.tokens.create({ name, capabilities, accountId: account.id });
    const flash: CreatedFlash = {
      kind: 'created-token',
      name: created.name,
      apiKey: created.apiKey,
      signingSecret: created.signingSecret,
    };
    await deps.signIns.setFlash(session, flash);
    redirect(ctx, '/settings/tokens/new');
  });

  router.get('/settings/tokens/new', auth, async (ctx) => {
    const flash = (await deps.signIns.takeFlash(signedIn(ctx).session)) as CreatedFlash | null;
    if (!flash || flash.kind !== 'created-token') return redirect(ctx, '/settings/tokens', 'token-gone');
    sendPage(
      ctx,
      chrome(ctx, 'Token created', 'settings'),
      html`${settingsNav('tokens', await isOwner(ctx, deps))}
        <article>
          <h1>Token “${flash.name}” created</h1>
          <p class="warning" role="alert">
            <strong>Copy the API key and the signing secret now.</strong> They will not be shown again: this page
            forgets them as soon as you leave or reload it. If you lose them, create a new token and revoke this one.
          </p>
          ${secretRow('api-key', 'API key', flash.apiKey, 'Send it in the X-API-Key header.')}
          ${secretRow('signing-secret', 'Signing secret', flash.signingSecret, 'Verifies the X-Service-Signature of callbacks sent to you.')}
          <p class="copy-status" aria-live="polite"></p>
          <a href="/settings/tokens" role="button" class="secondary">I have copied them</a>
        </article>`,
    );
  });

  router.post('/settings/tokens/:id/revoke', auth, signedInForm(), async (ctx) => {
    try {
      await deps.tokens.revoke(String(ctx.params.id), signedIn(ctx).account.id);
    } catch (err) {
      // Another account's token answers the same as one that does not exist.
      if (!(err instanceof ServiceError && err.status === 404)) throw err;
    }
    redirect(ctx, '/settings/tokens', 'token-revoked');
  });
}

function secretRow(id: string, label: string, value: string, hint: string) {
  return html`<label for="${id}">${label}</label>
    <div role="group" class="copy-row">
      <input
        id="${id}"
        class="secret"
        type="text"
        readonly
        value="${value}"
        aria-describedby="${id}-hint"
        spellcheck="false"
        autocomplete="off"
      />
      <button type="button" class="secondary" data-copy="${id}" aria-label="Copy the ${label.toLowerCase()}">
        Copy
      </button>
    </div>
    <small id="${id}-hint">${hint}</small>`;
}

function tokenTable(tokens: TokenInfo[], csrf: string) {
  return stackedTable({
    caption: 'Your API tokens',
    columns: ['Name', 'Capabilities', 'Created', 'Last used', 'Status'],
    actions: true,
    rows: tokens.map(
      (t) =>
        html`<tr data-token-id="${t.id}">
          <th scope="row">${t.name}</th>
          <td data-label="Capabilities">
            ${t.capabilities.length ? t.capabilities.map((c) => html`<code>${c}</code> `) : html`<span class="muted">none</span>`}
          </td>
          <td data-label="Created">${time(t.createdAt)}</td>
          <td data-label="Last used">${time(t.lastUsedAt, 'never')}</td>
          <td data-label="Status">
            ${t.revokedAt ? html`<span class="badge revoked">Revoked</span> ${time(t.revokedAt)}` : html`<span class="badge active">Active</span>`}
          </td>
          <td>
            ${
              !t.revokedAt &&
              confirmedAction({
                action: `/settings/tokens/${t.id}/revoke`,
                confirm: `Revoke the token “${t.name}”? Programs using its key stop working at once.`,
                verb: 'Revoke',
                name: t.name,
                csrf,
              })
            }
          </td>
        </tr>`,
    ),
  });
}
