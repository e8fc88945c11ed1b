/**
 * The project-catalog service: projects are the folders under
 * CONTENT_ROOT/deployed-md-files/docs, including ones put there by hand.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { queueGroup, svc, type Project } from '@notetaker/contracts';
import type { RunningService, ServiceContext, ServiceDefinition } from '@notetaker/kit';
import { PROJECT_ID } from '@notetaker/contracts';

export const DOCS_DIR = path.join('deployed-md-files', 'docs');

export function projectCatalogService(): ServiceDefinition {
  return {
    name: 'project-catalog',
    async start(ctx: ServiceContext): Promise<RunningService> {
      const docsRoot = path.join(ctx.config.contentRoot, DOCS_DIR);
      const sub = ctx.bus.serve(svc('projects', 'list'), async () => ({ projects: await listProjects(docsRoot) }), {
        queue: queueGroup('projects'),
      });
      return { stop: () => sub.unsubscribe() };
    },
  };
}

async function listProjects(docsRoot: string): Promise<Project[]> {
  const entries = await fs.readdir(docsRoot, { withFileTypes: true }).catch(() => []);
  const projects: Project[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !PROJECT_ID.test(entry.name)) continue;
    const meetings = await fs.readdir(path.join(docsRoot, entry.name, 'meetings')).catch(() => [] as string[]);
    projects.push({ id: entry.name, name: entry.name, hasMeetings: meetings.some((f) => f.endsWith('.md')) });
  }
  return projects.sort((a, b) => a.id.localeCompare(b.id));
}
