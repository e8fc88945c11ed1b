/**
 * Tasks (docs/api/reference.md#tasks), declared in capabilities/tasks.ts and answered by
 * task-scheduler on their routes; the whole list is read here a page at a time.
 */
import {
  createTask as createTaskCapability,
  deleteTask as deleteTaskCapability,
  disableTask as disableTaskCapability,
  enableTask as enableTaskCapability,
  getTask as getTaskCapability,
  getTaskHistory as getTaskHistoryCapability,
  listTasks as listTasksCapability,
  runTask as runTaskCapability,
  updateTask as updateTaskCapability,
} from '@notetaker/contracts';
import { composed, forwarded } from './operation.js';
import { listAllTasks } from './task-list.js';

export const listTasks = composed(listTasksCapability, async (bus, _caller, { scheduled }) => ({
  tasks: await listAllTasks(bus, scheduled === undefined ? {} : { scheduled: scheduled === 'true' }),
}));
export const createTask = forwarded(createTaskCapability);
export const getTask = forwarded(getTaskCapability);
export const updateTask = forwarded(updateTaskCapability);
export const deleteTask = forwarded(deleteTaskCapability);
export const runTask = forwarded(runTaskCapability);
export const enableTask = forwarded(enableTaskCapability);
export const disableTask = forwarded(disableTaskCapability);
export const getTaskHistory = forwarded(getTaskHistoryCapability);
