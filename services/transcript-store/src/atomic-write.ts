/**
 * Replaces a file so that a reader sees either the old or the new content, never half of one:
 * write a temporary file beside it, flush it to disk, then rename over the target (atomic within
 * one directory on POSIX). The temporary name starts with a dot and ends in `.tmp`, so listings
 * of the meetings folder never show it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** fsync the data before the rename (default true): after a power loss the file is whole or old. */
  fsync?: boolean;
}

export async function writeFileAtomic(
  target: string,
  content: string,
  options: AtomicWriteOptions = {},
): Promise<number> {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const data = Buffer.from(content, 'utf8');
  const handle = await fs.open(temp, 'wx', 0o644);
  try {
    try {
      await handle.writeFile(data);
      if (options.fsync ?? true) await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  return data.length;
}

/**
 * Creates `dir` (and parents) only when, symlinks resolved, it lies inside `root`: a project
 * folder replaced by a link to /etc must neither receive our files nor get folders made in it.
 * The deepest existing ancestor is checked before anything is created, the result after.
 */
export async function ensureDirInside(root: string, dir: string): Promise<void> {
  await fs.mkdir(root, { recursive: true });
  const realRoot = await fs.realpath(root);
  let existing = dir;
  while (
    !(await fs.stat(existing).then(
      () => true,
      () => false,
    ))
  ) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  assertInside(realRoot, await fs.realpath(existing), dir);
  await fs.mkdir(dir, { recursive: true });
  assertInside(realRoot, await fs.realpath(dir), dir);
}

function assertInside(realRoot: string, realDir: string, dir: string): void {
  const relative = path.relative(realRoot, realDir);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`${dir} resolves outside the content root`);
  }
}
