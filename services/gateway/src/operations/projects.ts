/** SPEC 4.2: projects and their meeting history, answered by project-catalog. */
import { call } from '@notetaker/bus';
import { projectMeetingsParams, projectMeetingsResponse, projectsResponse, routes } from '@notetaker/contracts';
import { noInput } from './meetings.js';
import { count, defineOperation, listed, READ } from './operation.js';

export const listProjects = defineOperation({
  name: 'list_projects',
  input: noInput,
  output: projectsResponse,
  rest: {
    method: 'get',
    path: '/projects',
    status: 200,
    tag: 'projects',
    summary: 'Every project of the instance',
    description: 'Projects',
  },
  tool: {
    title: 'List projects',
    description: 'Every project of the instance; saved transcripts live in a project.',
    annotations: READ,
    text: (b) =>
      listed(
        b.projects.length,
        'project',
        b.projects.map((p) => p.id),
      ),
  },
  handler: (bus) => call(bus, routes.projects.list, {}),
});

export const listProjectMeetings = defineOperation({
  name: 'list_project_meetings',
  input: projectMeetingsParams,
  output: projectMeetingsResponse,
  rest: {
    method: 'get',
    path: '/projects/:projectId/meetings',
    status: 200,
    tag: 'projects',
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
  handler: (bus, _caller, { projectId }) => call(bus, routes.projects.meetings, { projectId }),
});
