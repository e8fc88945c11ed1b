/** SPEC 4.2: projects and their meeting history. */
import type Router from '@koa/router';
import { listProjectMeetings, listProjects } from '../operations/projects.js';
import { answer, type RouteDeps } from './deps.js';

export function projectRoutes(router: Router, deps: RouteDeps): void {
  router.get(
    '/projects',
    answer(deps, listProjects, () => ({})),
  );
  router.get(
    '/projects/:projectId/meetings',
    answer(deps, listProjectMeetings, (ctx) => ctx.params),
  );
}
