/** Projects and their meeting history: declared in capabilities/projects.ts, answered by project-catalog. */
import {
  listProjectMeetings as listProjectMeetingsCapability,
  listProjects as listProjectsCapability,
} from '@notetaker/contracts';
import { forwarded } from './operation.js';

export const listProjects = forwarded(listProjectsCapability);
export const listProjectMeetings = forwarded(listProjectMeetingsCapability);
