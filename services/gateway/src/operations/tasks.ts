/**
 * SPEC 4.3 tasks, answered by task-scheduler (routes.tasks). Tasks belong to the instance, not to
 * a key: any authenticated caller manages them. Status codes the spec leaves open: 200 for every
 * read, update, delete, enable and disable; 202 for run (the run goes on after the answer).
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
  updateTaskRequest,
  type Route,
  type taskRef,
} from '@notetaker/contracts';
import type { z } from 'zod';
import { call, type Bus } from '@notetaker/bus';
import { count, defineOperation, listed, READ, WRITE } from './operation.js';
import { listAllTasks } from './task-list.js';

const TASK_NOT_FOUND = 'Task not found';

/** A name that cannot be a task is simply not found, like any other unknown task. */
function taskName(name: string): string {
  if (!TASK_NAME.test(name)) throw errors.notFound(TASK_NOT_FOUND);
  return name;
}

/** A verb on one task with no other argument: get, delete, enable, disable. */
const onTask =
  <Reply extends z.ZodType>(route: Route<typeof taskRef, Reply>) =>
  (bus: Bus, _caller: unknown, { name }: { name: string }) =>
    call(bus, route, { name: taskName(name) });

const ranAt = (b: { task: { name: string; nextRunAt: string | null } }, done: string) =>
  `${done} task ${b.task.name}; next run ${b.task.nextRunAt ?? 'on demand'}.`;

export const listTasks = defineOperation({
  name: 'list_tasks',
  input: tasksQuery,
  output: tasksResponse,
  rest: {
    method: 'get',
    path: '/tasks',
    status: 200,
    tag: 'tasks',
    summary: 'Every task, optionally only scheduled or only on-demand ones',
    description: 'Tasks by name',
  },
  tool: {
    title: 'List tasks',
    description: 'The AI tasks of the instance (a task runs a skill on demand or on a cron schedule).',
    annotations: READ,
    text: (b) =>
      listed(
        b.tasks.length,
        'task',
        b.tasks.map((t) => t.name),
      ),
  },
  handler: async (bus, _caller, { scheduled }) => ({
    tasks: await listAllTasks(bus, scheduled === undefined ? {} : { scheduled: scheduled === 'true' }),
  }),
});

export const createTask = defineOperation({
  name: 'create_task',
  input: createTaskRequest,
  output: taskResponse,
  rest: {
    method: 'post',
    path: '/tasks',
    status: 201,
    tag: 'tasks',
    summary: 'Create a task running a skill, on a cron schedule or on demand',
    description: 'Created',
    errors: { 404: 'Skill not found', 409: 'Task already exists', 413: 'Body over 1 MB' },
  },
  tool: {
    title: 'Create a task',
    description: 'Creates a task that runs a skill, on demand or on a cron schedule.',
    annotations: WRITE,
    text: (b) => ranAt(b, 'Created'),
  },
  handler: (bus, _caller, body) => call(bus, routes.tasks.create, body),
});

export const getTask = defineOperation({
  name: 'get_task',
  input: taskNameRequest,
  output: taskDetailsResponse,
  rest: {
    method: 'get',
    path: '/tasks/:name',
    status: 200,
    tag: 'tasks',
    summary: 'A task and its 10 most recent executions',
    description: 'The task',
    errors: { 404: TASK_NOT_FOUND },
  },
  tool: {
    title: 'Read a task',
    description: 'A task and its 10 most recent executions.',
    annotations: READ,
    text: (b) => `Task ${b.task.name} runs ${b.task.skillName}; last status ${b.task.lastStatus ?? 'never run'}.`,
  },
  handler: onTask(routes.tasks.get),
});

export const updateTask = defineOperation({
  name: 'update_task',
  input: updateTaskByName,
  output: taskResponse,
  rest: {
    method: 'put',
    path: '/tasks/:name',
    status: 200,
    body: { field: 'changes', schema: updateTaskRequest },
    tag: 'tasks',
    summary: 'Change some fields of a task',
    description: 'The task as changed',
    errors: { 404: `${TASK_NOT_FOUND}; or Skill not found`, 413: 'Body over 1 MB' },
  },
  tool: {
    title: 'Change a task',
    description: 'Changes the given fields of a task; the others keep their value.',
    annotations: { ...WRITE, idempotentHint: true },
    text: (b) => ranAt(b, 'Updated'),
  },
  handler: (bus, _caller, { name, changes }) => call(bus, routes.tasks.update, { name: taskName(name), changes }),
});

export const deleteTask = defineOperation({
  name: 'delete_task',
  input: taskNameRequest,
  output: successResponse,
  rest: {
    method: 'delete',
    path: '/tasks/:name',
    status: 200,
    tag: 'tasks',
    summary: 'Delete a task (its history goes with it)',
    description: 'Deleted',
    errors: { 404: TASK_NOT_FOUND },
  },
  tool: {
    title: 'Delete a task',
    description: 'Deletes a task and its schedule; a run in progress is cancelled.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    text: (b) => b.message,
  },
  handler: onTask(routes.tasks.delete),
});

export const runTask = defineOperation({
  name: 'run_task',
  input: taskNameRequest,
  output: runTaskResponse,
  rest: {
    method: 'post',
    path: '/tasks/:name/run',
    status: 202,
    tag: 'tasks',
    summary: 'Run a task now; the outcome is in its history',
    description: 'The run started',
    errors: { 404: TASK_NOT_FOUND, 409: 'Task is already running' },
  },
  tool: {
    title: 'Run a task now',
    description: 'Starts a run of the task now, scheduled or not; read the outcome with get_task_history.',
    annotations: WRITE,
    text: (b) => b.message,
  },
  // The history says who ran it: a key (REST, MCP) or someone in the web application.
  handler: (bus, caller, { name }) =>
    call(bus, routes.tasks.run, { name: taskName(name), triggerType: caller.kind === 'ui' ? 'ui' : 'api' }),
});

/**
 * enable_task and disable_task, the two switches of a scheduled task's timer: alike but for their
 * words, `action` naming the tool, the REST path and the bus route.
 */
function scheduleSwitch(
  action: 'enable' | 'disable',
  words: {
    summary: string;
    title: string;
    description: string;
    text: (b: z.infer<typeof taskResponse>) => string;
  },
) {
  return defineOperation({
    name: `${action}_task`,
    input: taskNameRequest,
    output: taskResponse,
    rest: {
      method: 'post',
      path: `/tasks/:name/${action}`,
      status: 200,
      tag: 'tasks',
      summary: words.summary,
      description: 'The task',
      errors: { 404: TASK_NOT_FOUND, 409: `The task is on-demand: it has no schedule to ${action}` },
    },
    tool: {
      title: words.title,
      description: words.description,
      annotations: { ...WRITE, idempotentHint: true },
      text: words.text,
    },
    handler: onTask(routes.tasks[action]),
  });
}

export const enableTask = scheduleSwitch('enable', {
  summary: 'Resume a scheduled task’s timer',
  title: 'Resume a task schedule',
  description: 'Turns the cron schedule of a scheduled task on.',
  text: (b) => `Task ${b.task.name} enabled; next run ${b.task.nextRunAt ?? 'none'}.`,
});

export const disableTask = scheduleSwitch('disable', {
  summary: 'Pause a scheduled task’s timer',
  title: 'Pause a task schedule',
  description: 'Pauses the cron schedule of a scheduled task (the schedule is kept; manual runs still work).',
  text: (b) => `Task ${b.task.name} disabled.`,
});

export const getTaskHistory = defineOperation({
  name: 'get_task_history',
  input: taskHistoryRequest,
  output: historyResponse,
  rest: {
    method: 'get',
    path: '/tasks/:name/history',
    status: 200,
    tag: 'tasks',
    summary: 'Executions of a task, newest first',
    description: 'Executions',
    errors: { 404: TASK_NOT_FOUND },
  },
  tool: {
    title: 'Read the runs of a task',
    description: 'The executions of a task, newest first, with their result summaries.',
    annotations: READ,
    text: (b) =>
      `${count(b.executions.length, 'execution')}` +
      b.executions
        .map((e) => `\n- ${e.startedAt} ${e.status}${e.resultSummary ? `: ${e.resultSummary}` : ''}`)
        .join(''),
  },
  handler: (bus, _caller, { name, limit, offset }) =>
    call(bus, routes.tasks.history, { name: taskName(name), limit, offset }),
});
