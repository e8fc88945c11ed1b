/**
 * Every capability of the API, in the order the OpenAPI document and tools/list show them. To add
 * one: declare it (operation.ts says what an entry holds) beside its handler, and list it here;
 * its REST route, OpenAPI path and MCP tool follow.
 */
import { getDeliveries } from './deliveries.js';
import { getEvents } from './events.js';
import { listMeetings, startMeeting, stopMeeting } from './meetings.js';
import type { Operation } from './operation.js';
import { listProjectMeetings, listProjects } from './projects.js';
import { deleteRecording, getRecording } from './recordings.js';
import * as tasks from './tasks.js';
import { getDocument, getTranscript, searchTranscripts } from './transcripts.js';

export const OPERATIONS: readonly Operation[] = [
  startMeeting,
  stopMeeting,
  listMeetings,
  getTranscript,
  getDocument,
  getRecording,
  deleteRecording,
  getEvents,
  getDeliveries,
  listProjects,
  listProjectMeetings,
  searchTranscripts,
  tasks.listTasks,
  tasks.createTask,
  tasks.getTask,
  tasks.updateTask,
  tasks.deleteTask,
  tasks.runTask,
  tasks.enableTask,
  tasks.disableTask,
  tasks.getTaskHistory,
];
