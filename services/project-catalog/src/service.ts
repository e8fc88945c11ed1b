/**
 * The project-catalog service: every project of the instance (the folders under
 * CONTENT_ROOT/deployed-md-files/docs, including ones put there by hand) and each project's
 * meeting history, read from the documents' front matter. Served on `svc.projects.list` and
 * `svc.projects.meetings` in the `q.projects` queue group. It follows the file system on every
 * request (see catalog.ts), so any number of instances, and hand edits, stay consistent.
 */
import { answer } from '@notetaker/bus';
import { queueGroup, routes } from '@notetaker/contracts';
import type { RunningService, ServiceContext, ServiceDefinition } from '@notetaker/service-runtime';
import { Catalog } from './catalog.js';

export function projectCatalogService(): ServiceDefinition {
  return {
    name: 'project-catalog',
    async start(ctx: ServiceContext): Promise<RunningService> {
      const catalog = new Catalog(ctx.store, ctx.config.contentRoot);
      await catalog.init();
      const queue = { queue: queueGroup('projects') };
      const subs = [
        answer(ctx.bus, routes.projects.list, async () => ({ projects: await catalog.list() }), queue),
        answer(
          ctx.bus,
          routes.projects.meetings,
          async ({ projectId }) => ({ project: projectId, meetings: await catalog.meetings(projectId) }),
          queue,
        ),
      ];
      return {
        async stop() {
          await Promise.all(subs.map((s) => s.unsubscribe()));
        },
      };
    },
  };
}
