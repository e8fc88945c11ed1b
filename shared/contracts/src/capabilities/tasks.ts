/**
 * The capabilities of task-scheduler, answered on `routes.tasks`. Tasks belong to the instance, not
 * to a key: any authenticated caller manages them. Statuses: 200 for every read, update, delete,
 * enable and disable; 201 for a create; 202 for a run (it goes on after the answer).
 */
import { z } from 'zod';
import { count, defineCapability, DESTRUCTIVE, IDEMPOTENT_WRITE, listed, READ, WRITE } from '../capability.js';
import {
  createTaskRequest,
  historyResponse,
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
} from '../rest.js';
import { BODY_TOO_LARGE } from './meetings.js';

/** Also the answer for a name no task could have. */
export const TASK_NOT_FOUND = 'Task not found';

// The scheduler checks a cron expression itself (the field count too, with their ranges: a test
// instance takes a seconds field), so on the bus the cron fields take any string.
const cronOnBus = z.string().max(200, 'cronExpression must be at most 200 characters');

const ranAt = (b: { task: { name: string; nextRunAt: string | null } }, done: string) =>
  `${done} task ${b.task.name}; next run ${b.task.nextRunAt ?? 'on demand'}.`;

/** Composed by the gateway: the scheduler answers a page at a time (`routes.tasks.list`), REST wants the list. */
export const listTasks = defineCapability({
  name: 'list_tasks',
  input: tasksQuery,
  output: tasksResponse,
  rest: {
    method: 'get',
    path: '/tasks',
    summary: 'Every task, optionally only scheduled or only on-demand ones',
    description: 'Tasks by name',
  },
  tool: {
    title: 'List tasks',
    description: 'The AI tasks of the instance (a task runs a skill on demand or on a cron schedule).',
    annotations: READ,
    text: (b) => listed('task', b.tasks, (t) => t.name),
  },
});

export const createTask = defineCapability({
  name: 'create_task',
  bus: { service: 'tasks', verb: 'create', scope: 'instance', fields: { cronExpression: cronOnBus.optional() } },
  input: createTaskRequest,
  output: taskResponse,
  errors: { 404: 'Skill not found', 409: 'Task already exists', 413: BODY_TOO_LARGE },
  rest: {
    method: 'post',
    path: '/tasks',
    status: 201,
    summary: 'Create a task running a skill, on a cron schedule or on demand',
    description: 'Created',
  },
  tool: {
    title: 'Create a task',
    description: 'Creates a task that runs a skill, on demand or on a cron schedule.',
    annotations: WRITE,
    text: (b) => ranAt(b, 'Created'),
  },
});

export const getTask = defineCapability({
  name: 'get_task',
  bus: { service: 'tasks', verb: 'get', scope: 'instance' },
  input: taskNameRequest,
  output: taskDetailsResponse,
  errors: { 404: TASK_NOT_FOUND },
  rest: {
    method: 'get',
    path: '/tasks/:name',
    summary: 'A task and its 10 most recent executions',
    description: 'The task',
  },
  tool: {
    title: 'Read a task',
    description: 'A task and its 10 most recent executions.',
    annotations: READ,
    text: (b) => `Task ${b.task.name} runs ${b.task.skillName}; last status ${b.task.lastStatus ?? 'never run'}.`,
  },
});

export const updateTask = defineCapability({
  name: 'update_task',
  bus: {
    service: 'tasks',
    verb: 'update',
    scope: 'instance',
    fields: { changes: updateTaskRequest.extend({ cronExpression: cronOnBus.nullable().optional() }) },
  },
  input: updateTaskByName,
  output: taskResponse,
  errors: { 404: `${TASK_NOT_FOUND}; or Skill not found`, 413: BODY_TOO_LARGE },
  rest: {
    method: 'put',
    path: '/tasks/:name',
    body: { field: 'changes', schema: updateTaskRequest },
    summary: 'Change some fields of a task',
    description: 'The task as changed',
  },
  tool: {
    title: 'Change a task',
    description: 'Changes the given fields of a task; the others keep their value.',
    annotations: IDEMPOTENT_WRITE,
    text: (b) => ranAt(b, 'Updated'),
  },
});

export const deleteTask = defineCapability({
  name: 'delete_task',
  bus: { service: 'tasks', verb: 'delete', scope: 'instance' },
  input: taskNameRequest,
  output: successResponse,
  errors: { 404: TASK_NOT_FOUND },
  rest: {
    method: 'delete',
    path: '/tasks/:name',
    summary: 'Delete a task (its history goes with it)',
    description: 'Deleted',
  },
  tool: {
    title: 'Delete a task',
    description: 'Deletes a task and its schedule; a run in progress is cancelled.',
    annotations: DESTRUCTIVE,
    text: (b) => b.message,
  },
});

/** The history says who ran it: the web (a `ui` caller), else a key or another service (`api`). */
export const runTask = defineCapability({
  name: 'run_task',
  bus: { service: 'tasks', verb: 'run', scope: 'instance' },
  input: taskNameRequest,
  output: runTaskResponse,
  errors: { 404: TASK_NOT_FOUND, 409: 'Task is already running' },
  rest: {
    method: 'post',
    path: '/tasks/:name/run',
    status: 202,
    summary: 'Run a task now; the outcome is in its history',
    description: 'The run started',
  },
  tool: {
    title: 'Run a task now',
    description: 'Starts a run of the task now, scheduled or not; read the outcome with get_task_history.',
    annotations: WRITE,
    text: (b) => b.message,
  },
});

/**
 * enable_task and disable_task, the two switches of a scheduled task's timer: alike but for their
 * words, `action` naming the tool, the REST path and the bus verb.
 */
function scheduleSwitch<A extends 'enable' | 'disable'>(
  action: A,
  words: { summary: string; title: string; description: string; text: (b: z.infer<typeof taskResponse>) => string },
) {
  return defineCapability({
    name: `${action}_task`,
    bus: { service: 'tasks', verb: action, scope: 'instance' },
    input: taskNameRequest,
    output: taskResponse,
    errors: { 404: TASK_NOT_FOUND, 409: `The task is on-demand: it has no schedule to ${action}` },
    rest: {
      method: 'post',
      path: `/tasks/:name/${action}`,
      summary: words.summary,
      description: 'The task',
    },
    tool: {
      title: words.title,
      description: words.description,
      annotations: IDEMPOTENT_WRITE,
      text: words.text,
    },
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

export const getTaskHistory = defineCapability({
  name: 'get_task_history',
  bus: { service: 'tasks', verb: 'history', scope: 'instance' },
  input: taskHistoryRequest,
  output: historyResponse,
  errors: { 404: TASK_NOT_FOUND },
  rest: {
    method: 'get',
    path: '/tasks/:name/history',
    summary: 'Executions of a task, newest first',
    description: 'Executions',
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
});

export const TASK_CAPABILITIES = [
  listTasks,
  createTask,
  getTask,
  updateTask,
  deleteTask,
  runTask,
  enableTask,
  disableTask,
  getTaskHistory,
] as const;
