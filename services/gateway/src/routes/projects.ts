/** SPEC 4.2: projects and their meeting history, answered by project-catalog. */
import type Router from '@koa/router';
import { svc } from '@notetaker/contracts';
import type { RouteDeps } from './deps.js';

export function projectRoutes(router: Router, { bus }: RouteDeps): void {
  router.get('/projects', async (ctx) => {
    ctx.body = await bus.request(svc('projects', 'list'), {});
  });
}
