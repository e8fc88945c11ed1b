/**
 * The capabilities of project-catalog: every project of the instance and a project's saved
 * meetings, answered on `routes.projects`.
 */
import { count, defineCapability, listed, READ } from '../capability.js';
import { projectMeetingsParams, projectMeetingsResponse, projectsResponse } from '../rest.js';
import { noInput } from './meetings.js';

export const PROJECT_NOT_FOUND = 'Project not found';

export const listProjects = defineCapability({
  name: 'list_projects',
  bus: { service: 'projects', verb: 'list', scope: 'instance' },
  input: noInput,
  output: projectsResponse,
  rest: {
    method: 'get',
    path: '/projects',
    summary: 'Every project of the instance',
    description: 'Projects',
  },
  tool: {
    title: 'List projects',
    description: 'Every project of the instance; saved transcripts live in a project.',
    annotations: READ,
    text: (b) => listed('project', b.projects, (p) => p.id),
  },
});

export const listProjectMeetings = defineCapability({
  name: 'list_project_meetings',
  bus: { service: 'projects', verb: 'meetings', scope: 'instance' },
  input: projectMeetingsParams,
  output: projectMeetingsResponse,
  errors: { 404: PROJECT_NOT_FOUND },
  rest: {
    method: 'get',
    path: '/projects/:projectId/meetings',
    summary: 'The meeting history of a project, newest first',
    description: 'History',
  },
  tool: {
    title: 'List the saved meetings of a project',
    description: 'The saved transcripts of one project, newest first.',
    annotations: READ,
    text: (b) =>
      `${count(b.meetings.length, 'saved meeting')} in ${b.project}` +
      b.meetings.map((m) => `\n- ${m.date} ${m.title} (${m.status})`).join(''),
  },
});

export const PROJECT_CAPABILITIES = [listProjects, listProjectMeetings] as const;
