/**
 * The one place a task writes files: a markdown document inside an existing project's folder,
 * `CONTENT_ROOT/deployed-md-files/docs/<project>/<path>.md`. The model chooses the project and the
 * path, so both are allowlisted, resolved, and checked against the real folder (symlinks too).
 * `meetings/` is left to transcript-store, whose documents it lists as the project's history.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DOCS_DIR, PROJECT_ID } from '@notetaker/contracts';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9 ._()-]{0,99}$/;
export const MAX_DOCUMENT_CHARS = 200_000;

/** A refusal the model gets back as the tool's answer. */
export class ToolInputError extends Error {}

function checkRelativePath(relative: string): string[] {
  const segments = relative.split('/');
  if (segments.length > 4) throw new ToolInputError('path may have at most 3 folders');
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment.includes('..')) {
      throw new ToolInputError(
        `path segment ${JSON.stringify(segment)} is not allowed (letters, digits, space . _ ( ) -)`,
      );
    }
  }
  if (!relative.endsWith('.md')) throw new ToolInputError('path must end with .md');
  if (segments.length > 1 && segments[0].toLowerCase() === 'meetings') {
    throw new ToolInputError('meetings/ holds the saved transcripts; write elsewhere (e.g. digests/)');
  }
  return segments;
}

function inside(parent: string, child: string): boolean {
  return child.startsWith(parent + path.sep);
}

/** Writes atomically (temp file, rename); returns the path relative to CONTENT_ROOT. */
export async function writeProjectDocument(
  contentRoot: string,
  projectId: string,
  relative: string,
  content: string,
): Promise<string> {
  if (!PROJECT_ID.test(projectId)) throw new ToolInputError('projectId is not a valid project id');
  if (content.length > MAX_DOCUMENT_CHARS) throw new ToolInputError(`content is over ${MAX_DOCUMENT_CHARS} characters`);
  const segments = checkRelativePath(relative);
  const docsRoot = path.resolve(contentRoot, DOCS_DIR);
  const projectDir = path.resolve(docsRoot, projectId);
  let realDocs: string;
  let realProject: string;
  try {
    [realDocs, realProject] = await Promise.all([fs.realpath(docsRoot), fs.realpath(projectDir)]);
    if (!(await fs.stat(realProject)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new ToolInputError(`project ${projectId} does not exist`);
  }
  if (!inside(realDocs, realProject)) throw new ToolInputError(`project ${projectId} is outside the content folder`);

  const target = path.resolve(realProject, ...segments);
  if (!inside(realProject, target)) throw new ToolInputError('path leaves the project folder');
  await fs.mkdir(path.dirname(target), { recursive: true });
  // A folder on the way could be a symlink planted earlier: check where the parent really is.
  const realParent = await fs.realpath(path.dirname(target));
  if (realParent !== realProject && !inside(realProject, realParent)) {
    throw new ToolInputError('path leaves the project folder');
  }
  const existing = await fs.lstat(path.join(realParent, path.basename(target))).catch(() => null);
  if (existing && !existing.isFile()) throw new ToolInputError('path names something that is not a file');

  const temp = path.join(realParent, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  await fs.writeFile(temp, content, { encoding: 'utf8', flag: 'wx' });
  try {
    await fs.rename(temp, path.join(realParent, path.basename(target)));
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  return path.posix.join(DOCS_DIR, projectId, ...segments);
}
