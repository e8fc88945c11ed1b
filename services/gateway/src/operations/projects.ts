/** SPEC 4.2: projects and their meeting history, answered by project-catalog. */
import { projectMeetingsParams, projectMeetingsResponse, projectsResponse, svc } from '@notetaker/contracts';
import { noInput } from './meetings.js';
import { operation } from './operation.js';

export const listProjects = operation({
  input: noInput,
  output: projectsResponse,
  run: (bus) => bus.request(svc('projects', 'list'), {}),
});

export const listProjectMeetings = operation({
  input: projectMeetingsParams,
  output: projectMeetingsResponse,
  run: (bus, _caller, { projectId }) => bus.request(svc('projects', 'meetings'), { projectId }),
});
