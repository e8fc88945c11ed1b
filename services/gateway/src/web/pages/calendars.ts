/**
 * Calendars from the browser, through the calendar capabilities (shared/contracts, answered by
 * task-scheduler) as REST and MCP reach them: the signed-in account's calendars, a connect form
 * (the credentials are never rendered back, not even after an error), and each calendar's page
 * with its next 7 days of meetings, whether a bot goes to each and why, a per-meeting choice and
 * Disconnect. Calendars connected here belong to the web account, as its meetings do: no callback.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { call } from '@notetaker/bus';
import {
  CALENDAR_ID,
  CALENDAR_EVENT_ID,
  calendarProvider,
  connectCalendar,
  errors,
  PLATFORM_NAMES,
  ServiceError,
  type CalendarEvent,
} from '@notetaker/contracts';
import type { Calendar } from '@notetaker/contracts';
import { operate, read, settle } from '../backend.js';
import { chrome, formOf, signedIn, uiCaller, type WebDeps } from '../context.js';
import { field } from '../form-body.js';
import { checkForm, placeErrors } from '../form-input.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html } from '../html.js';
import {
  confirmedAction,
  csrfInput,
  formError,
  inputField,
  selectField,
  sendPage,
  stackedTable,
  time,
  unavailable,
} from '../layout.js';
import { redirect } from '../notices.js';
import { formFieldOf } from '../params.js';
import {
  disconnectCalendar,
  getCalendar,
  listCalendarEvents,
  listCalendars,
  setCalendarEventJoin,
} from '../../operations/calendars.js';

const FIELDS = [
  'provider',
  'url',
  'clientId',
  'clientSecret',
  'refreshToken',
  'calendarId',
  'tenant',
  'project',
  'join',
] as const;
type Field = (typeof FIELDS)[number];
/** What the form shows again after an error: the settings, never a credential. */
const SHOWN_AGAIN: readonly Field[] = ['provider', 'calendarId', 'tenant', 'project', 'join'];
const PROVIDERS = [
  ['ics', 'ICS feed (Google, Outlook, iCloud secret address)'],
  ['google', 'Google Calendar (OAuth refresh token)'],
  ['microsoft', 'Microsoft 365 (OAuth refresh token)'],
] as const;
const JOIN_RULES = [
  ['accepted', 'Meetings I organize or accepted'],
  ['all', 'Every meeting'],
  ['none', 'None (I choose per meeting)'],
] as const;
const REASONS: Record<CalendarEvent['reason'], string> = {
  rule: 'the calendar’s rule',
  override: 'your choice',
  declined: 'declined',
  cancelled: 'cancelled',
  not_accepted: 'not accepted',
  no_meeting_link: 'no meeting link',
  started: 'bot started',
  already_transcribed: 'a bot is there already',
  start_failed: 'the bot could not start',
  ended: 'ended',
};

type Values = Partial<Record<Field, string>> & { errors: Partial<Record<Field | 'form', string>> };

const param = (ctx: Context, name: string, pattern: RegExp) => {
  const value = String(ctx.params[name] ?? '');
  if (!pattern.test(value)) throw errors.notFound();
  return value;
};

export function calendarPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  const renderList = async (ctx: Context, values: Values, status = 200) => {
    const listed = await settle(read(ctx, deps.bus, listCalendars, {}));
    const csrf = signedIn(ctx).session.csrfToken;
    const shown = (name: Field) => (SHOWN_AGAIN.includes(name) ? (values[name] ?? '') : '');
    const secret = (name: Field, label: string, hint: string) =>
      inputField({ name, label, type: 'password', error: values.errors[name], hint, attrs: html` autocomplete="off"` });
    sendPage(
      ctx,
      chrome(ctx, 'Calendars', 'calendars'),
      html`<h1>Calendars</h1>
        <p>
          A connected calendar sends a bot to each of its meetings at the start, follows a meeting that moves and skips
          one that is cancelled or declined.
        </p>
        ${
          !listed.ok
            ? listed.unavailable
              ? unavailable('calendar')
              : html`<p>${listed.error.message}</p>`
            : listed.value.calendars.length === 0
              ? html`<p>No calendar connected yet.</p>`
              : calendarTable(listed.value.calendars)
        }
        <section aria-labelledby="connect-heading">
          <h2 id="connect-heading">Connect a calendar</h2>
          <form method="post" action="/calendars" novalidate>
            ${csrfInput(csrf)} ${formError(values.errors.form)}
            ${selectField({ name: 'provider', label: 'Provider', choices: PROVIDERS, value: shown('provider') || 'ics', error: values.errors.provider, required: true })}
            ${secret('url', 'Feed address', 'ICS: the secret iCalendar address (https:// or webcal://). Stored encrypted, never shown again.')}
            ${inputField({ name: 'clientId', label: 'OAuth client id', error: values.errors.clientId, hint: 'Google or Microsoft.', attrs: html` autocomplete="off"` })}
            ${secret('clientSecret', 'OAuth client secret', 'Google or Microsoft. Stored encrypted.')}
            ${secret('refreshToken', 'Refresh token', 'Granted by the calendar’s owner (read-only calendar scope). Stored encrypted.')}
            ${inputField({ name: 'calendarId', label: 'Google calendar id', value: shown('calendarId'), error: values.errors.calendarId, hint: 'Default: primary.' })}
            ${inputField({ name: 'tenant', label: 'Microsoft tenant', value: shown('tenant'), error: values.errors.tenant, hint: 'Default: common.' })}
            ${inputField({ name: 'project', label: 'Project', value: shown('project'), error: values.errors.project, hint: 'Where the transcripts are saved (default api).' })}
            ${selectField({ name: 'join', label: 'Bots go to', choices: JOIN_RULES, value: shown('join') || 'accepted', error: values.errors.join })}
            <button type="submit">Connect calendar</button>
          </form>
        </section>`,
      status,
    );
  };

  router.get('/calendars', auth, (ctx) => renderList(ctx, { errors: {} }));

  router.post('/calendars', auth, signedInForm(), async (ctx) => {
    const form = formOf(ctx);
    const raw: Record<string, unknown> = { callbackUrl: null, caller: uiCaller(ctx) };
    for (const name of FIELDS) {
      const value = field(form, name, 4096).trim();
      if (value) raw[name] = value;
    }
    const values: Values = { ...(raw as Partial<Record<Field, string>>), errors: {} };
    // The capability's own route and schema, with the web's null callback (as the web's start has).
    const checked = checkForm(connectCalendar.route.request, raw);
    if (!checked.ok) {
      placeErrors(checked.errors, FIELDS, values.errors);
      return renderList(ctx, values, 400);
    }
    let id: string;
    try {
      ({
        calendar: { id },
      } = await call(deps.bus, connectCalendar.route, checked.input));
    } catch (err) {
      if (!(err instanceof ServiceError) || err.status >= 500) throw err;
      values.errors[formFieldOf(err, FIELDS) ?? 'form'] = err.message;
      return renderList(ctx, values, err.status);
    }
    redirect(ctx, `/calendars/${id}`, 'calendar-connected');
  });

  router.get('/calendars/:calendarId', auth, async (ctx) => {
    const calendarId = param(ctx, 'calendarId', CALENDAR_ID);
    const [got, listed] = await Promise.all([
      settle(read(ctx, deps.bus, getCalendar, { calendarId })),
      settle(read(ctx, deps.bus, listCalendarEvents, { calendarId })),
    ]);
    if (!got.ok) {
      if (!got.unavailable) throw got.error;
      return sendPage(ctx, chrome(ctx, 'Calendar', 'calendars'), unavailable('calendar'), 503);
    }
    const { calendar } = got.value;
    const csrf = signedIn(ctx).session.csrfToken;
    const events = listed.ok ? listed.value.events : [];
    sendPage(
      ctx,
      chrome(ctx, 'Calendar', 'calendars'),
      html`<nav aria-label="breadcrumb">
          <ul>
            <li><a href="/calendars">Calendars</a></li>
            <li>${calendar.id}</li>
          </ul>
        </nav>
        <h1>${providerName(calendar)}</h1>
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>${statusBadge(calendar)}</dd>
          </div>
          <div>
            <dt>Last sync</dt>
            <dd>${time(calendar.lastSyncAt)}</dd>
          </div>
          <div>
            <dt>Bots go to</dt>
            <dd>${JOIN_RULES.find(([rule]) => rule === calendar.join)?.[1]}</dd>
          </div>
          <div>
            <dt>Project</dt>
            <dd>${calendar.project}</dd>
          </div>
        </dl>
        ${calendar.error && html`<p role="status">${calendar.error}</p>`}
        <h2>Next 7 days</h2>
        ${
          !listed.ok
            ? unavailable('calendar')
            : events.length === 0
              ? html`<p>No meeting with a Meet, Teams or Zoom link in the next 7 days.</p>`
              : stackedTable({
                  columns: ['Meeting', 'Starts', 'Platform', 'Bot'],
                  actions: true,
                  rows: events.map(
                    (e) =>
                      html`<tr>
                        <th scope="row">
                          ${e.meetingId ? html`<a href="/meetings/${e.meetingId}">${e.title}</a>` : e.title}
                        </th>
                        <td data-label="Starts">${time(e.startAt)}</td>
                        <td data-label="Platform">${e.platform ? PLATFORM_NAMES[e.platform] : '—'}</td>
                        <td data-label="Bot">${e.join ? 'goes' : 'does not go'} (${REASONS[e.reason]})</td>
                        <td>
                          ${
                            !e.meetingId &&
                            e.reason !== 'cancelled' &&
                            html`<form
                              class="inline"
                              method="post"
                              action="/calendars/${calendar.id}/events/${e.eventId}/join"
                            >
                              ${csrfInput(csrf)}<input type="hidden" name="join" value="${e.join ? 'false' : 'true'}" />
                              <button
                                type="submit"
                                class="secondary outline compact"
                                aria-label="${e.join ? 'No bot for' : 'Send a bot to'} ${e.title}"
                              >
                                ${e.join ? 'No bot' : 'Send a bot'}
                              </button>
                            </form>`
                          }
                        </td>
                      </tr>`,
                  ),
                })
        }
        <div class="actions">
          ${confirmedAction({ action: `/calendars/${calendar.id}/delete`, confirm: 'Disconnect this calendar? Its bots not started yet are cancelled.', verb: 'Disconnect', name: providerName(calendar), csrf })}
        </div>`,
    );
  });

  router.post('/calendars/:calendarId/events/:eventId/join', auth, signedInForm(), async (ctx) => {
    const calendarId = param(ctx, 'calendarId', CALENDAR_ID);
    const eventId = param(ctx, 'eventId', CALENDAR_EVENT_ID);
    const join = field(formOf(ctx), 'join', 10) === 'true';
    await operate(ctx, deps.bus, setCalendarEventJoin, { calendarId, eventId, join });
    redirect(ctx, `/calendars/${calendarId}`, 'calendar-event-changed');
  });

  router.post('/calendars/:calendarId/delete', auth, signedInForm(), async (ctx) => {
    const calendarId = param(ctx, 'calendarId', CALENDAR_ID);
    await operate(ctx, deps.bus, disconnectCalendar, { calendarId });
    redirect(ctx, '/calendars', 'calendar-removed');
  });
}

function providerName(calendar: Calendar): string {
  const provider = calendarProvider.enum;
  return calendar.provider === provider.ics
    ? 'ICS feed'
    : calendar.provider === provider.google
      ? `Google Calendar (${calendar.calendarId})`
      : `Microsoft 365 (${calendar.tenant})`;
}

function statusBadge(calendar: Calendar) {
  return html`<span class="badge calendar-${calendar.status}">${calendar.status}</span>`;
}

function calendarTable(calendars: Calendar[]) {
  return stackedTable({
    columns: ['Calendar', 'Status', 'Last sync', 'Bots go to'],
    rows: calendars.map(
      (c) =>
        html`<tr>
          <th scope="row"><a href="/calendars/${c.id}">${providerName(c)}</a></th>
          <td data-label="Status">${statusBadge(c)}${c.error && html` ${c.error}`}</td>
          <td data-label="Last sync">${time(c.lastSyncAt)}</td>
          <td data-label="Bots go to">${JOIN_RULES.find(([rule]) => rule === c.join)?.[1]}</td>
        </tr>`,
    ),
  });
}
