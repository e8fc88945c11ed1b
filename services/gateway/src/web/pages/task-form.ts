/**
 * The new-task form: a skill picked from the skills folder, a cron expression with a preview of
 * its next runs in the task's time zone (live through htmx, or with the Preview button without
 * script), and the errors of the scheduler next to their fields.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { DEFAULT_TASK_TIMEOUT_MS, MAX_TASK_TIMEOUT_MS } from '@notetaker/contracts';
import { createTask } from '../../operations/tasks.js';
import { handle, settle } from '../backend.js';
import { chrome, formOf, signedIn, type WebDeps } from '../context.js';
import { previewCron } from '../cron-preview.js';
import { field } from '../form-body.js';
import { checkForm, placeErrors } from '../form-input.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html } from '../html.js';
import { csrfInput, fieldMessages, formError, inputField, sendFragment, sendPage } from '../layout.js';
import { redirect } from '../notices.js';
import { formFieldOf } from '../params.js';
import { listSkills } from '../skills.js';
import { cronPreviewBlock } from './task-parts.js';

const TASK_FIELDS = ['name', 'skillName', 'cronExpression', 'timezone', 'timeout'] as const;
type TaskField = (typeof TASK_FIELDS)[number];

interface TaskValues {
  name: string;
  skillName: string;
  cronExpression: string;
  timezone: string;
  enabled: boolean;
  timeoutSeconds: string;
  errors: Partial<Record<TaskField | 'form', string>>;
}

const TIME_ZONES = Intl.supportedValuesOf('timeZone');

export function taskForm(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  const renderForm = async (ctx: Context, values: TaskValues, status = 200) => {
    const skills = await listSkills(deps.skillsDir);
    const preview = values.cronExpression ? previewCron(values.cronExpression, values.timezone) : null;
    const skillError = values.errors.skillName;
    sendPage(
      ctx,
      chrome(ctx, 'New task', 'tasks'),
      html`<nav aria-label="breadcrumb">
          <ul>
            <li><a href="/tasks">Tasks</a></li>
            <li>New task</li>
          </ul>
        </nav>
        <h1>New task</h1>
        <form method="post" action="/tasks" novalidate>
          ${csrfInput(signedIn(ctx).session.csrfToken)} ${formError(values.errors.form)}
          ${inputField({ name: 'name', label: 'Name', value: values.name, error: values.errors.name, required: true, maxlength: 64, hint: 'Letters, digits, dot, - and _; unique.' })}
          ${
            skills && skills.length > 0
              ? html`<label for="f-skillName">Skill</label>
                  <select
                    id="f-skillName"
                    name="skillName"
                    required${skillError ? html` aria-invalid="true" aria-describedby="f-skillName-error"` : ''}
                  >
                    <option value="">Choose a skill…</option>
                    ${skills.map((s) => html`<option value="${s.name}" ${s.name === values.skillName ? html` selected` : ''}>${s.name}${s.description && ` — ${s.description}`}</option>`)}
                  </select>
                  ${fieldMessages('f-skillName', skillError, null)}`
              : html`${inputField({ name: 'skillName', label: 'Skill', value: values.skillName, error: skillError, required: true, hint: skills ? 'No skill found in the skills folder.' : 'The skills folder cannot be read here; type the skill name.' })}`
          }
          ${inputField({ name: 'cronExpression', label: 'Schedule (cron)', value: values.cronExpression, error: values.errors.cronExpression, placeholder: '0 9 * * 1-5', hint: 'Five fields: minute hour day-of-month month day-of-week. Empty: on demand only.', attrs: html` spellcheck="false" autocomplete="off"` })}
          ${inputField({ name: 'timezone', label: 'Time zone', value: values.timezone, error: values.errors.timezone, required: true, list: 'time-zones', attrs: html` autocomplete="off"` })}
          <datalist id="time-zones">${TIME_ZONES.map((z) => html`<option value="${z}"></option>`)}</datalist>
          ${cronPreviewBlock(preview)}
          <p>
            <button type="submit" formmethod="get" formaction="/tasks/new" formnovalidate class="secondary outline">
              Preview the schedule
            </button>
          </p>
          ${inputField({ name: 'timeout', label: 'Timeout (seconds)', type: 'number', value: values.timeoutSeconds, error: values.errors.timeout, required: true, inputmode: 'numeric', attrs: html` min="1" max="${MAX_TASK_TIMEOUT_MS / 1000}"` })}
          <label
            ><input type="checkbox" name="enabled" value="true" ${values.enabled ? html` checked` : ''} /> Schedule
            enabled</label
          >
          <button type="submit">Create task</button>
        </form>`,
      status,
    );
  };

  const valuesFrom = (source: (name: string) => string): TaskValues => ({
    name: source('name'),
    skillName: source('skillName'),
    cronExpression: source('cronExpression'),
    timezone: source('timezone') || 'UTC',
    enabled: source('enabled') === 'true',
    timeoutSeconds: source('timeout') || String(DEFAULT_TASK_TIMEOUT_MS / 1000),
    errors: {},
  });

  router.get('/tasks/new', auth, (ctx) => {
    // The "Preview" button submits the form here with GET: the values come back with their preview.
    const q = (name: string) =>
      typeof ctx.query[name] === 'string' ? (ctx.query[name] as string).trim().slice(0, 200) : '';
    const previewing = 'cronExpression' in ctx.query;
    const values = valuesFrom(q);
    if (!previewing) values.enabled = true;
    return renderForm(ctx, values);
  });

  router.get('/tasks/new/preview', auth, (ctx) => {
    const q = (name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string).slice(0, 200) : '');
    const expression = q('cronExpression').trim();
    sendFragment(ctx, cronPreviewBlock(expression ? previewCron(expression, q('timezone')) : null));
  });

  router.post('/tasks', auth, signedInForm(), async (ctx) => {
    const form = formOf(ctx);
    const values = valuesFrom((name) => field(form, name, 1000));
    // Checked by create_task's schema, as REST and MCP check it (the form counts the timeout in
    // seconds, the operation in milliseconds); the scheduler judges the schedule itself.
    const checked = checkForm(createTask.input, {
      name: values.name,
      skillName: values.skillName,
      cronExpression: values.cronExpression || undefined,
      timezone: values.timezone,
      enabled: values.enabled,
      timeout: Number(values.timeoutSeconds) * 1000,
    });
    if (!checked.ok) {
      placeErrors(checked.errors, TASK_FIELDS, values.errors);
      return renderForm(ctx, values, 400);
    }
    const created = await settle(handle(ctx, deps.bus, createTask, checked.input));
    if (!created.ok) {
      const { error } = created;
      if (created.unavailable) values.errors.form = 'The task service is unavailable right now. Try again in a moment.';
      else if (error.status === 409) values.errors.name = error.message;
      else if (error.status === 404) values.errors.skillName = error.message;
      else values.errors[formFieldOf(error, TASK_FIELDS) ?? 'form'] = error.message;
      return renderForm(ctx, values, created.unavailable ? 503 : error.status);
    }
    redirect(ctx, `/tasks/${encodeURIComponent(values.name)}`, 'task-created');
  });
}
