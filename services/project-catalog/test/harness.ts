/** Starts the real project-catalog on a real memory bus, embedded store and temp CONTENT_ROOT. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { routes } from '@notetaker/contracts';
import { startServiceUnderTest } from '@notetaker/service-runtime/test-support';
import { openStore } from '@notetaker/store';
import { projectCatalogService } from '../src/index.js';

export interface CatalogHarness {
  contentRoot: string;
  docs: string;
  request<T = unknown>(verb: keyof typeof routes.projects, data: unknown): Promise<T>;
  /** Writes a file under docs/, creating folders; returns its absolute path. */
  write(relative: string, content: string): string;
  restart(): Promise<CatalogHarness>;
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

export async function startCatalog(
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-test-')),
): Promise<CatalogHarness> {
  const dataDir = path.join(base, 'data');
  const contentRoot = path.join(base, 'content');
  const docs = path.join(contentRoot, 'deployed-md-files/docs');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(contentRoot, { recursive: true });
  const { bus, stop } = await startServiceUnderTest(projectCatalogService(), {
    store: await openStore({ service: 'project-catalog', dataDir }),
    env: { DATA_DIR: dataDir, CONTENT_ROOT: contentRoot, LOG_LEVEL: 'silent' },
  });
  const harness: CatalogHarness = {
    contentRoot,
    docs,
    request: (verb, data) => bus.request(routes.projects[verb].subject, data),
    write(relative, content) {
      const file = path.join(docs, relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    async restart() {
      await harness.stop();
      return startCatalog(base);
    },
    stop,
    async dispose() {
      await harness.stop();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  return harness;
}
