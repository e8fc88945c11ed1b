/**
 * SPEC 4.3 tasks. Status codes the spec leaves open: 200 for every read, update, delete, enable and
 * disable; 202 for run (the run goes on after the answer).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { historyQuery, updateTaskRequest } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';
import * as tasks from '../operations/tasks.js';
import { answer, type RouteDeps } from './deps.js';

const named = (ctx: Context) => ({ name: ctx.params.name });

export function taskRoutes(router: Router, deps: RouteDeps): void {
  router.get(
    '/tasks',
    answer(deps, tasks.listTasks, (ctx) => ctx.query),
  );
  router.post(
    '/tasks',
    answer(deps, tasks.createTask, (ctx) => ctx.request.body, 201),
  );
  router.get('/tasks/:name', answer(deps, tasks.getTask, named));
  // The body alone is checked first, so a `name` in it is an unknown field rather than the path's.
  router.put(
    '/tasks/:name',
    answer(deps, tasks.updateTask, (ctx) => ({
      ...named(ctx),
      changes: parseInput(updateTaskRequest, ctx.request.body),
    })),
  );
  router.delete('/tasks/:name', answer(deps, tasks.deleteTask, named));
  router.post('/tasks/:name/run', answer(deps, tasks.runTask, named, 202));
  router.post('/tasks/:name/enable', answer(deps, tasks.enableTask, named));
  router.post('/tasks/:name/disable', answer(deps, tasks.disableTask, named));
  router.get(
    '/tasks/:name/history',
    answer(deps, tasks.getTaskHistory, (ctx) => ({ ...parseInput(historyQuery, ctx.query), ...named(ctx) })),
  );
}
