/**
 * SPEC 4.3 tasks, answered by task-scheduler over svc.tasks.*. Tasks belong to the instance, not to
 * a key: any authenticated caller manages them.
 */
import {
  TASK_NAME,
  createTaskRequest,
  errors,
  historyResponse,
  runTaskResponse,
  successResponse,
  svc,
  taskDetailsResponse,
  taskHistoryRequest,
  taskNameRequest,
  taskResponse,
  tasksQuery,
  tasksResponse,
  updateTaskByName,
} from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import { operation } from './operation.js';
import { listAllTasks } from './task-list.js';

/** A name that cannot be a task is simply not found, like any other unknown task. */
function taskName(name: string): string {
  if (!TASK_NAME.test(name)) throw errors.notFound('Task not found');
  return name;
}

const tasks = <T>(bus: Bus, verb: string, data: unknown): Promise<T> => bus.request<T>(svc('tasks', verb), data);

/** A verb on one task with no other argument: get, delete, enable, disable. */
const onTask =
  <T>(verb: string) =>
  (bus: Bus, _caller: unknown, { name }: { name: string }): Promise<T> =>
    tasks<T>(bus, verb, { name: taskName(name) });

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
  run: (bus, _caller, body) => tasks(bus, 'create', body),
});

export const getTask = operation({ input: taskNameRequest, output: taskDetailsResponse, run: onTask('get') });

export const updateTask = operation({
  input: updateTaskByName,
  output: taskResponse,
  run: (bus, _caller, { name, changes }) => tasks(bus, 'update', { name: taskName(name), changes }),
});

export const deleteTask = operation({ input: taskNameRequest, output: successResponse, run: onTask('delete') });

export const runTask = operation({
  input: taskNameRequest,
  output: runTaskResponse,
  run: (bus, _caller, { name }) => tasks(bus, 'run', { name: taskName(name), triggerType: 'api' }),
});

export const enableTask = operation({ input: taskNameRequest, output: taskResponse, run: onTask('enable') });
export const disableTask = operation({ input: taskNameRequest, output: taskResponse, run: onTask('disable') });

export const getTaskHistory = operation({
  input: taskHistoryRequest,
  output: historyResponse,
  run: (bus, _caller, { name, limit, offset }) => tasks(bus, 'history', { name: taskName(name), limit, offset }),
});
