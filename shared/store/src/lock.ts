/**
 * One process per embedded folder. nedb keeps the whole collection in memory and appends to its
 * file, so a second writer would silently lose or duplicate data: the LOCK file (holding the
 * owner's pid, created with O_EXCL) turns that into a clear error at open time.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ServiceError } from '@notetaker/contracts';

/** Locks this process holds: a LOCK carrying our own pid that is not in here is a leftover of an
 * earlier process that happened to get the same pid (common in containers, where it is often 1). */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false; // caller checks `held` first
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readPid(file: string): Promise<number | null> {
  // A lock created a moment ago may not have its pid written yet: give the owner a little time.
  for (let attempt = 0; attempt < 5; attempt++) {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const pid = Number.parseInt(text.trim(), 10);
    if (Number.isInteger(pid) && pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 0; // unreadable: treat as stale
}

function lockedError(folder: string, pid: number): ServiceError {
  return new ServiceError(
    'store_locked',
    `The data folder ${folder} is open in process ${pid}; stop it or use its API`,
    409,
  );
}

/** Takes `<folder>/LOCK` or throws ServiceError `store_locked`; a lock of a dead pid is taken over. */
export async function acquireLock(folder: string): Promise<string> {
  const file = path.join(folder, 'LOCK');
  if (held.has(file)) throw lockedError(folder, process.pid);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await fs.writeFile(file, `${process.pid}\n`, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = await readPid(file);
      if (pid !== null && pid !== 0 && isAlive(pid)) throw lockedError(folder, pid);
      // Stale: remove it and race for a fresh exclusive create (the loser sees EEXIST again).
      await fs.rm(file, { force: true });
      continue;
    }
    // Two processes taking over the same stale lock at once could both get here (one removed the
    // other's fresh file): reading back our pid narrows that to a negligible window.
    const owner = await readPid(file);
    if (owner !== process.pid) {
      if (owner) throw lockedError(folder, owner);
      continue;
    }
    held.add(file);
    return file;
  }
  throw new ServiceError('store_locked', `Could not take the lock of ${folder}; retry`, 409, true);
}

export async function releaseLock(file: string): Promise<void> {
  if (!held.delete(file)) return;
  // Only remove it when it is still ours (an operator may have deleted and reused the folder).
  if ((await readPid(file)) === process.pid) await fs.rm(file, { force: true });
}
