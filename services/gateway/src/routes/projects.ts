/** SPEC 4.2: projects and their meeting history, answered by project-catalog. */
import type Router from '@koa/router';
import { z } from 'zod';
import { PROJECT_ID, svc } from '@notetaker/contracts';
import { parseInput } from '../http/validate.js';
import type { RouteDeps } from './deps.js';

export const projectParams = z.object({
  projectId: z.string().regex(PROJECT_ID, 'projectId must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
});

export function projectRoutes(router: Router, { bus }: RouteDeps): void {
  router.get('/projects', async (ctx) => {
    ctx.body = await bus.request(svc('projects', 'list'), {});
  });

  router.get('/projects/:projectId/meetings', async (ctx) => {
    const { projectId } = parseInput(projectParams, ctx.params);
    ctx.body = await bus.request(svc('projects', 'meetings'), { projectId });
  });
}
