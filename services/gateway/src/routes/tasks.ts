/**
 * SPEC 4.3 tasks, answered by task-scheduler over svc.tasks.*. Tasks belong to the instance, not to
 * a key: any authenticated caller manages them. Status codes the spec leaves open: 200 for every
 * read, update, delete, enable and disable; 202 for run (the run goes on after the answer).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  createTaskRequest,
  historyQuery,
  svc,
  TASK_NAME,
  tasksQuery,
  updateTaskRequest,
  errors,
} from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';
import { listAllTasks } from './task-list.js';
import type { RouteDeps } from './deps.js';

/** A name that cannot be a task is simply not found, like any other unknown task. */
function taskName(ctx: Context): string {
  const name = ctx.params.name as string;
  if (!TASK_NAME.test(name)) throw errors.notFound('Task not found');
  return name;
}

export function taskRoutes(router: Router, { bus }: RouteDeps): void {
  const tasks = (verb: string, data: unknown) => bus.request(svc('tasks', verb), data);

  router.get('/tasks', async (ctx) => {
    const { scheduled } = parseInput(tasksQuery, ctx.query);
    ctx.body = { tasks: await listAllTasks(bus, scheduled === undefined ? {} : { scheduled: scheduled === 'true' }) };
  });

  router.post('/tasks', async (ctx) => {
    const body = parseInput(createTaskRequest, ctx.request.body);
    ctx.body = await tasks('create', body);
    ctx.status = 201;
  });

  router.get('/tasks/:name', async (ctx) => {
    ctx.body = await tasks('get', { name: taskName(ctx) });
  });

  router.put('/tasks/:name', async (ctx) => {
    const name = taskName(ctx);
    const changes = parseInput(updateTaskRequest, ctx.request.body);
    ctx.body = await tasks('update', { name, changes });
  });

  router.delete('/tasks/:name', async (ctx) => {
    ctx.body = await tasks('delete', { name: taskName(ctx) });
  });

  router.post('/tasks/:name/run', async (ctx) => {
    ctx.body = await tasks('run', { name: taskName(ctx), triggerType: 'api' });
    ctx.status = 202;
  });

  router.post('/tasks/:name/enable', async (ctx) => {
    ctx.body = await tasks('enable', { name: taskName(ctx) });
  });

  router.post('/tasks/:name/disable', async (ctx) => {
    ctx.body = await tasks('disable', { name: taskName(ctx) });
  });

  router.get('/tasks/:name/history', async (ctx) => {
    const name = taskName(ctx);
    const { limit, offset } = parseInput(historyQuery, ctx.query);
    ctx.body = await tasks('history', { name, limit, offset });
  });
}
