/** SPEC 4.2: projects and their meeting history, answered by project-catalog. */
import { call } from '@notetaker/bus';
import { projectMeetingsParams, projectMeetingsResponse, projectsResponse, routes } from '@notetaker/contracts';
import { noInput } from './meetings.js';
import { operation } from './operation.js';

export const listProjects = operation({
  input: noInput,
  output: projectsResponse,
  run: (bus) => call(bus, routes.projects.list, {}),
});

export const listProjectMeetings = operation({
  input: projectMeetingsParams,
  output: projectMeetingsResponse,
  run: (bus, _caller, { projectId }) => call(bus, routes.projects.meetings, { projectId }),
});
