/**
 * Every REST route under /api/v1 as data: the schemas its handler validates with, and the body it
 * answers (the shared operation's output, as REST and MCP answer it), by status. The OpenAPI
 * document is generated from this table (document.ts), and a test holds it equal to the routes the
 * router serves, so a route cannot be added undocumented.
 */
import type { z } from 'zod';
import {
  createTaskRequest,
  eventsQuery,
  historyQuery,
  searchQuery,
  startMeetingRequest,
  stopMeetingRequest,
  tasksQuery,
  transcriptQuery,
  updateTaskRequest,
  webhookDeliveriesReply,
} from '@notetaker/contracts';
import { deliveriesQuery } from '../routes/deliveries.js';
import { getEvents } from '../operations/events.js';
import { listMeetings, startMeeting, stopMeeting } from '../operations/meetings.js';
import { listProjectMeetings, listProjects } from '../operations/projects.js';
import * as tasks from '../operations/tasks.js';
import { getTranscript, searchTranscripts } from '../operations/transcripts.js';

export type Method = 'get' | 'post' | 'put' | 'delete';

export interface Operation {
  method: Method;
  /** Koa's spelling, relative to /api/v1: `/tasks/:name`. */
  path: string;
  summary: string;
  tag: 'meetings' | 'projects' | 'search' | 'tasks' | 'meta';
  body?: z.ZodType;
  query?: z.ZodType;
  /** The success status and its JSON body (`markdown`: a text/markdown file instead). */
  success: { status: number; description: string; schema?: z.ZodType; markdown?: true };
  /** Error statuses besides 401 (every authenticated route) and 400 (every route with input). */
  errors?: Partial<Record<403 | 404 | 409 | 413 | 503, string>>;
  /** Served without an API key. */
  public?: true;
}

const notOwned = 'Not found: no such meeting, or another key’s';
const taskNotFound = 'Task not found';

export const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/meetings/start',
    tag: 'meetings',
    summary: 'Send a bot into a Google Meet or Teams meeting; events go to callbackUrl, signed',
    body: startMeetingRequest,
    success: { status: 201, description: 'The bot is joining', schema: startMeeting.output },
    errors: {
      403: 'saveTranscript without the knowledge:write capability',
      409: 'Meeting URL is already being transcribed',
      413: 'Body over 1 MB',
      503: 'A service is unavailable, or every bot seat is busy or no bot has a browser (then with Retry-After)',
    },
  },
  {
    method: 'post',
    path: '/meetings/stop',
    tag: 'meetings',
    summary: 'Make the bot leave; the final document and status follow as events',
    body: stopMeetingRequest,
    success: { status: 200, description: 'The bot is leaving', schema: stopMeeting.output },
    errors: { 404: notOwned, 409: 'Meeting has ended', 413: 'Body over 1 MB' },
  },
  {
    method: 'get',
    path: '/meetings/status',
    tag: 'meetings',
    summary: 'Meetings of this key being transcribed now',
    success: { status: 200, description: 'Live meetings', schema: listMeetings.output },
  },
  {
    method: 'get',
    path: '/meetings/:meetingId/transcript',
    tag: 'meetings',
    summary: 'The finalized segments of a live or ended meeting (after an index: only the newer ones)',
    query: transcriptQuery,
    success: { status: 200, description: 'The transcript', schema: getTranscript.output },
    errors: { 404: notOwned },
  },
  {
    method: 'get',
    path: '/meetings/:meetingId/document',
    tag: 'meetings',
    summary: 'The saved markdown document, as a download',
    success: { status: 200, description: 'The markdown file', markdown: true },
    errors: { 404: `${notOwned}; or No saved document for this meeting` },
  },
  {
    method: 'get',
    path: '/meetings/:meetingId/events',
    tag: 'meetings',
    summary: 'The events of a meeting after a sequence, each as its callback carried it: catch up on what was missed',
    query: eventsQuery,
    success: { status: 200, description: 'Events in sequence order', schema: getEvents.output },
    errors: { 404: notOwned },
  },
  {
    method: 'get',
    path: '/meetings/:meetingId/deliveries',
    tag: 'meetings',
    summary: 'The callback delivery log of a meeting: each event, its attempts and outcome',
    query: deliveriesQuery,
    success: { status: 200, description: 'Deliveries in sequence order', schema: webhookDeliveriesReply },
    errors: { 404: notOwned },
  },
  {
    method: 'get',
    path: '/projects',
    tag: 'projects',
    summary: 'Every project of the instance',
    success: { status: 200, description: 'Projects', schema: listProjects.output },
  },
  {
    method: 'get',
    path: '/projects/:projectId/meetings',
    tag: 'projects',
    summary: 'The meeting history of a project, newest first',
    success: { status: 200, description: 'History', schema: listProjectMeetings.output },
  },
  {
    method: 'get',
    path: '/search',
    tag: 'search',
    summary: 'Search saved transcripts, best first',
    query: searchQuery,
    success: { status: 200, description: 'Results', schema: searchTranscripts.output },
    errors: { 503: 'The index is being rebuilt; retry' },
  },
  {
    method: 'get',
    path: '/tasks',
    tag: 'tasks',
    summary: 'Every task, optionally only scheduled or only on-demand ones',
    query: tasksQuery,
    success: { status: 200, description: 'Tasks by name', schema: tasks.listTasks.output },
  },
  {
    method: 'post',
    path: '/tasks',
    tag: 'tasks',
    summary: 'Create a task running a skill, on a cron schedule or on demand',
    body: createTaskRequest,
    success: { status: 201, description: 'Created', schema: tasks.createTask.output },
    errors: { 404: 'Skill not found', 409: 'Task already exists', 413: 'Body over 1 MB' },
  },
  {
    method: 'get',
    path: '/tasks/:name',
    tag: 'tasks',
    summary: 'A task and its 10 most recent executions',
    success: { status: 200, description: 'The task', schema: tasks.getTask.output },
    errors: { 404: taskNotFound },
  },
  {
    method: 'put',
    path: '/tasks/:name',
    tag: 'tasks',
    summary: 'Change some fields of a task',
    body: updateTaskRequest,
    success: { status: 200, description: 'The task as changed', schema: tasks.updateTask.output },
    errors: { 404: `${taskNotFound}; or Skill not found`, 413: 'Body over 1 MB' },
  },
  {
    method: 'delete',
    path: '/tasks/:name',
    tag: 'tasks',
    summary: 'Delete a task (its history goes with it)',
    success: { status: 200, description: 'Deleted', schema: tasks.deleteTask.output },
    errors: { 404: taskNotFound },
  },
  {
    method: 'post',
    path: '/tasks/:name/run',
    tag: 'tasks',
    summary: 'Run a task now; the outcome is in its history',
    success: { status: 202, description: 'The run started', schema: tasks.runTask.output },
    errors: { 404: taskNotFound, 409: 'Task is already running' },
  },
  {
    method: 'post',
    path: '/tasks/:name/enable',
    tag: 'tasks',
    summary: 'Resume a scheduled task’s timer',
    success: { status: 200, description: 'The task', schema: tasks.enableTask.output },
    errors: { 404: taskNotFound, 409: 'The task is on-demand: it has no schedule to enable' },
  },
  {
    method: 'post',
    path: '/tasks/:name/disable',
    tag: 'tasks',
    summary: 'Pause a scheduled task’s timer',
    success: { status: 200, description: 'The task', schema: tasks.disableTask.output },
    errors: { 404: taskNotFound, 409: 'The task is on-demand: it has no schedule to disable' },
  },
  {
    method: 'get',
    path: '/tasks/:name/history',
    tag: 'tasks',
    summary: 'Executions of a task, newest first',
    query: historyQuery,
    success: { status: 200, description: 'Executions', schema: tasks.getTaskHistory.output },
    errors: { 404: taskNotFound },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'meta',
    summary: 'This document',
    success: { status: 200, description: 'OpenAPI 3.1' },
    public: true,
  },
];
