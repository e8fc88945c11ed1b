/**
 * The page shell and the small pieces every page is built from. No inline script or style
 * anywhere (the CSP forbids both): behaviour lives in /static/app.js, looks in /static/app.css.
 */
import type { Context } from 'koa';
import type { AccountInfo } from '../identity/accounts.js';
import { CSRF_FIELD } from './csrf.js';
import { html, type Html, type Renderable } from './html.js';

export type NavKey = 'meetings' | 'projects' | 'search' | 'tasks' | 'calendars' | 'settings';

export interface Chrome {
  title: string;
  /** The signed-in account; null on the signed-out pages (no navigation). */
  account: AccountInfo | null;
  csrf: string;
  current?: NavKey;
  notice?: Html | string | null;
}

const NAV: Array<[NavKey, string, string]> = [
  ['meetings', '/meetings', 'Meetings'],
  ['projects', '/projects', 'Projects'],
  ['search', '/search', 'Search'],
  ['tasks', '/tasks', 'Tasks'],
  ['calendars', '/calendars', 'Calendars'],
  ['settings', '/settings/tokens', 'Settings'],
];

// htmx must not inject its indicator <style> (CSP) nor evaluate attribute code.
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
});

export function pageDocument(chrome: Chrome, main: Renderable): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="htmx-config" content="${HTMX_CONFIG}" />
        <title>${chrome.title} · Notetaker</title>
        <link rel="stylesheet" href="/static/pico.min.css" />
        <link rel="stylesheet" href="/static/app.css" />
        <link rel="icon" href="/static/icon.svg" type="image/svg+xml" />
        <script src="/static/htmx.min.js" defer></script>
        <script src="/static/app.js" defer></script>
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="container site-header">
          <nav aria-label="Main">
            <ul>
              <li>
                <a class="brand" href="/"><strong>Notetaker</strong></a>
              </li>
            </ul>
            ${chrome.account && navigation(chrome)}
          </nav>
        </header>
        <main id="main" class="container" tabindex="-1">
          ${chrome.notice && html`<p class="notice" role="status">${chrome.notice}</p>`} ${main}
        </main>
        ${chrome.account && html`<footer class="container"><small>Signed in as ${chrome.account.email}</small></footer>`}
      </body>
    </html>`;
}

function navigation(chrome: Chrome): Html {
  return html`<ul class="site-nav">
    ${NAV.map(
      ([key, href, label]) =>
        html`<li><a href="${href}" ${chrome.current === key ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}
    <li>
      <form class="inline" method="post" action="/signout">
        ${csrfInput(chrome.csrf)}<button type="submit" class="secondary outline compact">Sign out</button>
      </form>
    </li>
  </ul>`;
}

export function sendPage(ctx: Context, chrome: Chrome, main: Renderable, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = pageDocument(chrome, main).value;
}

/** An htmx fragment: just the markup, no shell. */
export function sendFragment(ctx: Context, fragment: Html, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = fragment.value;
}

export function csrfInput(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

/**
 * A table row's action: a one-button POST form that app.js asks the person to confirm first.
 * `name` is what the row stands for, in the button's accessible name ("Remove Sales bot").
 */
export function confirmedAction(o: {
  action: string;
  confirm: string;
  verb: string;
  name: string;
  csrf: string;
}): Html {
  return html`<form class="inline" method="post" action="${o.action}" data-confirm="${o.confirm}">
    ${csrfInput(o.csrf)}<button type="submit" class="secondary outline compact" aria-label="${o.verb} ${o.name}">
      ${o.verb}
    </button>
  </form>`;
}

/**
 * A list as a table that becomes one card a row on narrow screens (app.css `stack-narrow`: the head
 * is hidden there and each cell shows its `data-label`). `columns` head the table; with `actions`, a
 * last column, named for screen readers only, holds each row's buttons.
 */
export function stackedTable(o: { caption?: string; columns: string[]; actions?: boolean; rows: Html[] }): Html {
  return html`<div class="overflow-auto">
    <table class="striped stack-narrow">
      ${
        o.caption &&
        html`<caption class="visually-hidden">
          ${o.caption}
        </caption>`
      }
      <thead>
        <tr>
          ${o.columns.map((column) => html`<th scope="col">${column}</th>`)}
          ${o.actions && html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}
        </tr>
      </thead>
      <tbody>
        ${o.rows}
      </tbody>
    </table>
  </div>`;
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string | null;
  hint?: Renderable;
  required?: boolean;
  autocomplete?: string;
  placeholder?: string;
  maxlength?: number;
  inputmode?: string;
  list?: string;
  /** Extra attributes, already safe (built with html``). */
  attrs?: Html;
}

export function fieldId(name: string): string {
  return `f-${name}`;
}

/** A labelled input with its hint and, when the last submit failed on it, its error right below. */
export function inputField(o: FieldOptions): Html {
  const id = fieldId(o.name);
  const describedBy = [o.error ? `${id}-error` : null, o.hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return html`<label for="${id}">${o.label}${!o.required && html` <span class="optional">(optional)</span>`}</label>
    <input
      id="${id}"
      name="${o.name}"
      type="${o.type ?? 'text'}"
      value="${o.value ?? ''}"
      ${o.required && html` required`}${
        o.autocomplete && html` autocomplete="${o.autocomplete}"`
      }${o.placeholder && html` placeholder="${o.placeholder}"`}${o.maxlength && html` maxlength="${o.maxlength}"`}${
        o.inputmode && html` inputmode="${o.inputmode}"`
      }${o.list && html` list="${o.list}"`}${o.error && html` aria-invalid="true"`}${
        describedBy && html` aria-describedby="${describedBy}"`
      }${o.attrs ?? ''}
    />
    ${fieldMessages(id, o.error, o.hint)}`;
}

/** A labelled select of `choices` ([value, label]) and, when the last submit failed on it, its error right below. */
export function selectField(o: {
  name: string;
  label: string;
  choices: ReadonlyArray<readonly [string, string]>;
  value: string;
  error?: string | null;
  required?: boolean;
}): Html {
  const id = fieldId(o.name);
  const invalid = o.error && html`aria-invalid="true" aria-describedby="${id}-error"`;
  return html`<label for="${id}">${o.label}</label>
    <select id="${id}" name="${o.name}" ${o.required && html`required`} ${invalid}>
      ${o.choices.map(([value, label]) => html`<option value="${value}" ${o.value === value && html`selected`}>${label}</option>`)}
    </select>
    ${fieldMessages(id, o.error, null)}`;
}

export function fieldMessages(id: string, error: string | null | undefined, hint: Renderable): Html {
  return html`${error && html`<small id="${id}-error" class="field-error">${error}</small>`}${
    hint && html`<small id="${id}-hint">${hint}</small>`
  }`;
}

/** A form-wide error (not tied to one field), announced when the page loads. */
export function formError(message: string | null | undefined): Html {
  return html`${message && html`<p class="form-error" role="alert">${message}</p>`}`;
}

/** The state of a page part whose service is not answering. */
export function unavailable(service: string): Html {
  return html`<article class="unavailable" role="status">
    <h2 class="h-small">Service unavailable</h2>
    <p>
      The ${service} service is not answering right now, so this part cannot be shown. The rest of the application still
      works; reload the page to try again.
    </p>
  </article>`;
}

/** A timestamp shown in UTC by the server; app.js rewrites it into the reader's local time. */
export function time(iso: string | null | undefined, empty = '—'): Html {
  if (!iso) return html`${empty}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  const shown = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}" data-local>${shown}</time>`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds % 60)} s`;
}
