/**
 * SPEC 4.3 tasks, answered by task-scheduler (routes.tasks). Tasks belong to the instance, not to
 * a key: any authenticated caller manages them.
 */
import {
  TASK_NAME,
  createTaskRequest,
  errors,
  historyResponse,
  routes,
  runTaskResponse,
  successResponse,
  taskDetailsResponse,
  taskHistoryRequest,
  taskNameRequest,
  taskResponse,
  tasksQuery,
  tasksResponse,
  updateTaskByName,
  type Route,
  type taskRef,
} from '@notetaker/contracts';
import type { z } from 'zod';
import { call, type Bus } from '@notetaker/bus';
import { operation } from './operation.js';
import { listAllTasks } from './task-list.js';

/** A name that cannot be a task is simply not found, like any other unknown task. */
function taskName(name: string): string {
  if (!TASK_NAME.test(name)) throw errors.notFound('Task not found');
  return name;
}

/** A verb on one task with no other argument: get, delete, enable, disable. */
const onTask =
  <Reply extends z.ZodType>(route: Route<typeof taskRef, Reply>) =>
  (bus: Bus, _caller: unknown, { name }: { name: string }) =>
    call(bus, route, { name: taskName(name) });

export const listTasks = operation({
  input: tasksQuery,
  output: tasksResponse,
  run: async (bus, _caller, { scheduled }) => ({
    tasks: await listAllTasks(bus, scheduled === undefined ? {} : { scheduled: scheduled === 'true' }),
  }),
});

export const createTask = operation({
  input: createTaskRequest,
  output: taskResponse,
  run: (bus, _caller, body) => call(bus, routes.tasks.create, body),
});

export const getTask = operation({
  input: taskNameRequest,
  output: taskDetailsResponse,
  run: onTask(routes.tasks.get),
});

export const updateTask = operation({
  input: updateTaskByName,
  output: taskResponse,
  run: (bus, _caller, { name, changes }) => call(bus, routes.tasks.update, { name: taskName(name), changes }),
});

export const deleteTask = operation({
  input: taskNameRequest,
  output: successResponse,
  run: onTask(routes.tasks.delete),
});

export const runTask = operation({
  input: taskNameRequest,
  output: runTaskResponse,
  run: (bus, _caller, { name }) => call(bus, routes.tasks.run, { name: taskName(name), triggerType: 'api' }),
});

export const enableTask = operation({ input: taskNameRequest, output: taskResponse, run: onTask(routes.tasks.enable) });
export const disableTask = operation({
  input: taskNameRequest,
  output: taskResponse,
  run: onTask(routes.tasks.disable),
});

export const getTaskHistory = operation({
  input: taskHistoryRequest,
  output: historyResponse,
  run: (bus, _caller, { name, limit, offset }) =>
    call(bus, routes.tasks.history, { name: taskName(name), limit, offset }),
});
