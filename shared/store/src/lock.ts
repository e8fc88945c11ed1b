/**
 * One process per embedded folder. A collection is kept whole in memory and appended to its
 * file, so a second writer would silently lose or duplicate data: the LOCK file (created with
 * O_EXCL) turns that into a clear error at open time.
 *
 * The LOCK names its holder by pid and by the pid's start time (`/proc/<pid>/stat`, field 22), so
 * a holder that died without removing it is recognised however it went: a dead pid, a zombie (a
 * process tree killed as a group leaves its node a zombie for a moment), or a pid now used by
 * another process (after a container restart the old pid often belongs to something else). Such
 * a LOCK is stale and is taken over; a live holder gives a clear error.
 */
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ServiceError } from '@notetaker/contracts';

/** Locks this process holds: a LOCK carrying our own pid that is not in here is a leftover of an
 * earlier process that happened to get the same pid (common in containers, where it is often 1). */
const held = new Set<string>();

/** A LOCK's holder: pid, and its start time in clock ticks since boot where /proc tells it. */
interface Holder {
  pid: number;
  startTime: string | null;
}

/** Why a LOCK's holder no longer holds it, or null while it lives. */
export type StaleReason = 'dead' | 'zombie' | 'pid_reused' | 'unreadable' | 'own_pid';

interface ProcState {
  state: string;
  startTime: string;
}

/** State and start time of a process from /proc; null when it does not exist; undefined without /proc. */
function procState(pid: number): ProcState | null | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return procAvailable() ? null : undefined;
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], startTime: fields[19] };
}

let hasProc: boolean | undefined;
function procAvailable(): boolean {
  if (hasProc === undefined) {
    try {
      readFileSync('/proc/self/stat');
      hasProc = true;
    } catch {
      hasProc = false;
    }
  }
  return hasProc;
}

/** This process as a LOCK records it. */
function self(): Holder {
  return { pid: process.pid, startTime: procState(process.pid)?.startTime ?? null };
}

function staleReason(holder: Holder): StaleReason | null {
  if (holder.pid === process.pid) return 'own_pid'; // caller checks `held` first
  const proc = procState(holder.pid);
  if (proc === null) return 'dead';
  if (proc === undefined) return isAlive(holder.pid) ? null : 'dead';
  if (proc.state === 'Z' || proc.state === 'X') return 'zombie';
  if (holder.startTime !== null && holder.startTime !== proc.startTime) return 'pid_reused';
  return null;
}

/** Without /proc (macOS): signal 0 tells whether the pid exists. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `<pid> <start time>` (older LOCKs hold the pid alone); null when there is no LOCK. */
async function readHolder(file: string): Promise<Holder | null> {
  // A lock created a moment ago may not have its content written yet: give the owner a little time.
  for (let attempt = 0; attempt < 5; attempt++) {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const [pidText, startTime] = text.trim().split(/\s+/);
    const pid = Number.parseInt(pidText, 10);
    if (Number.isInteger(pid) && pid > 0) return { pid, startTime: startTime || null };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { pid: 0, startTime: null }; // unreadable: stale
}

const sameHolder = (a: Holder | null, b: Holder) => a !== null && a.pid === b.pid && a.startTime === b.startTime;

function lockedError(folder: string, pid: number): ServiceError {
  return new ServiceError(
    'store_locked',
    `The data folder ${folder} is open in process ${pid}; stop it or use its API`,
    409,
  );
}

/** A stale LOCK that was taken over: whose it was and why it no longer counted. */
export interface StaleLock {
  file: string;
  pid: number;
  reason: StaleReason;
}

/**
 * Takes `<folder>/LOCK` or throws ServiceError `store_locked` naming the live holder. A stale LOCK
 * is taken over and reported to `onStale` (one log line for the operator).
 */
export async function acquireLock(folder: string, onStale?: (stale: StaleLock) => void): Promise<string> {
  const file = path.join(folder, 'LOCK');
  if (held.has(file)) throw lockedError(folder, process.pid);
  const me = self();
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await fs.writeFile(file, `${me.pid} ${me.startTime ?? ''}\n`, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await readHolder(file);
      if (holder === null) continue; // removed meanwhile: race for it again
      const reason = holder.pid === 0 ? 'unreadable' : staleReason(holder);
      if (reason === null) throw lockedError(folder, holder.pid);
      // Stale: remove it and race for a fresh exclusive create (the loser sees EEXIST again).
      await fs.rm(file, { force: true });
      onStale?.({ file, pid: holder.pid, reason });
      continue;
    }
    // Two processes taking over the same stale lock at once could both get here (one removed the
    // other's fresh file): reading back our own line narrows that to a negligible window.
    const owner = await readHolder(file);
    if (!sameHolder(owner, me)) {
      if (owner && owner.pid) throw lockedError(folder, owner.pid);
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
  if (sameHolder(await readHolder(file), self())) await fs.rm(file, { force: true });
}
