/**
 * Tasks through the tasks operations (operations/tasks.ts), as REST and MCP reach them: the list,
 * a create form with a skill picker (the folders of SKILLS_DIR) and a preview of the next runs in
 * the task's time zone, and each task's page with enable/disable, Run now (trigger `ui`) and its
 * history.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ServiceError } from '@notetaker/contracts';
import { operate, read, settle } from '../backend.js';
import { chrome, signedIn, type WebDeps } from '../context.js';
import { requireSignIn, signedInForm } from '../guards.js';
import { html } from '../html.js';
import { csrfInput, sendPage, stackedTable, time, unavailable } from '../layout.js';
import { redirect } from '../notices.js';
import { taskNameParam } from '../params.js';
import type { Operation } from '../../operations/operation.js';
import { disableTask, enableTask, getTask, getTaskHistory, listTasks, runTask } from '../../operations/tasks.js';
import { taskForm } from './task-form.js';
import { executionBadge, historyTable, scheduleText } from './task-parts.js';

const HISTORY_PAGE = 20;
const VERBS: Record<'run' | 'enable' | 'disable', Operation<typeof runTask.input>> = {
  run: runTask,
  enable: enableTask,
  disable: disableTask,
};

export function taskPages(router: Router, deps: WebDeps): void {
  const auth = requireSignIn(deps);

  router.get('/tasks', auth, async (ctx) => {
    const listed = await settle(read(ctx, deps.bus, listTasks, {}));
    const body = !listed.ok
      ? listed.unavailable
        ? unavailable('task')
        : html`<p>${listed.error.message}</p>`
      : listed.value.tasks.length === 0
        ? html`<p>No task yet.</p>`
        : stackedTable({
            columns: ['Task', 'Skill', 'Schedule', 'Last run', 'Next run'],
            rows: listed.value.tasks.map(
              (t) =>
                html`<tr>
                  <th scope="row"><a href="/tasks/${t.name}">${t.name}</a></th>
                  <td data-label="Skill">${t.skillName}</td>
                  <td data-label="Schedule">${scheduleText(t)}</td>
                  <td data-label="Last run">${executionBadge(t.lastStatus)} ${t.lastRunAt && time(t.lastRunAt)}</td>
                  <td data-label="Next run">${t.isScheduled && t.enabled ? time(t.nextRunAt) : '—'}</td>
                </tr>`,
            ),
          });
    sendPage(
      ctx,
      chrome(ctx, 'Tasks', 'tasks'),
      html`<div class="title-row">
          <h1>Tasks</h1>
          <a href="/tasks/new" role="button">New task</a>
        </div>
        ${body}`,
    );
  });

  taskForm(router, deps);

  /**
   * A task's page; after a switch or run the operation refused (409), with the operation's own
   * message, as REST and MCP answer it.
   */
  const showTask = async (ctx: Context, name: string, refused?: ServiceError) => {
    const offset = Math.max(0, Math.min(1_000_000, Number.parseInt(String(ctx.query.offset ?? '0'), 10) || 0));
    const [details, history] = await Promise.all([
      settle(read(ctx, deps.bus, getTask, { name })),
      settle(read(ctx, deps.bus, getTaskHistory, { name, limit: HISTORY_PAGE, offset })),
    ]);
    if (!details.ok) {
      if (!details.unavailable) throw details.error;
      return sendPage(ctx, chrome(ctx, name, 'tasks'), unavailable('task'), 503);
    }
    const { task } = details.value;
    const csrf = signedIn(ctx).session.csrfToken;
    const executions = history.ok ? history.value.executions : [];
    const page = chrome(ctx, task.name, 'tasks');
    sendPage(
      ctx,
      refused ? { ...page, notice: refused.message } : page,
      html`<nav aria-label="breadcrumb">
          <ul>
            <li><a href="/tasks">Tasks</a></li>
            <li>${task.name}</li>
          </ul>
        </nav>
        <h1>${task.name}</h1>
        <dl class="facts">
          <div>
            <dt>Skill</dt>
            <dd>${task.skillName}</dd>
          </div>
          <div>
            <dt>Schedule</dt>
            <dd>${scheduleText(task)}</dd>
          </div>
          <div>
            <dt>Next run</dt>
            <dd>${task.isScheduled && task.enabled ? time(task.nextRunAt) : '—'}</dd>
          </div>
          <div>
            <dt>Last run</dt>
            <dd>${executionBadge(task.lastStatus)} ${task.lastRunAt && time(task.lastRunAt)}</dd>
          </div>
          <div>
            <dt>Timeout</dt>
            <dd>${Math.round(task.timeoutMs / 1000)} s</dd>
          </div>
        </dl>
        <div class="actions">
          <form class="inline" method="post" action="/tasks/${task.name}/run">
            ${csrfInput(csrf)}<button type="submit">Run now</button>
          </form>
          ${
            task.isScheduled &&
            html`<form class="inline" method="post" action="/tasks/${task.name}/${task.enabled ? 'disable' : 'enable'}">
              ${csrfInput(csrf)}<button type="submit" class="secondary">
                ${task.enabled ? 'Disable schedule' : 'Enable schedule'}
              </button>
            </form>`
          }
        </div>
        <h2>History</h2>
        ${history.ok ? historyTable(executions) : history.unavailable ? unavailable('task') : html`<p>${history.error.message}</p>`}
        <nav aria-label="History pages" class="pager">
          ${offset > 0 && html`<a href="/tasks/${task.name}?offset=${Math.max(0, offset - HISTORY_PAGE)}">Newer</a>`}
          ${executions.length === HISTORY_PAGE && html`<a href="/tasks/${task.name}?offset=${offset + HISTORY_PAGE}">Older</a>`}
        </nav>`,
      refused?.status ?? 200,
    );
  };

  router.get('/tasks/:name', auth, (ctx) => showTask(ctx, taskNameParam(ctx)));

  for (const verb of ['run', 'enable', 'disable'] as const) {
    router.post(`/tasks/:name/${verb}`, auth, signedInForm(), async (ctx) => {
      const name = taskNameParam(ctx);
      try {
        // The operations themselves, as REST and MCP perform them (a run from here is triggered `ui`).
        await operate(ctx, deps.bus, VERBS[verb], { name });
      } catch (err) {
        // 409: a run is in progress, or an on-demand task has no schedule to switch.
        if (!(err instanceof ServiceError && err.status === 409)) throw err;
        return showTask(ctx, name, err);
      }
      redirect(
        ctx,
        `/tasks/${name}`,
        verb === 'run' ? 'task-started' : verb === 'enable' ? 'task-enabled' : 'task-disabled',
      );
    });
  }
}
