/**
 * Chromium's processes as Linux sees them (/proc): for sweeping up after a browser and for
 * measuring what a meeting costs. A launched browser leads its own process group (puppeteer spawns
 * it detached), and every helper process it forks stays in that group.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  comm: string;
}

export function readEntry(pid: number): ProcessEntry | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    if (fields[0] === 'Z') return null;
    return { pid, comm, ppid: Number(fields[1]), pgrp: Number(fields[2]) };
  } catch {
    return null;
  }
}

export function allProcesses(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readEntry(Number(name)))
    .filter((entry): entry is ProcessEntry => entry !== null);
}

export const isChromium = (entry: ProcessEntry) => /chrom/i.test(entry.comm);

/** The live Chromium processes of a browser's process group (the browser's pid is the group id). */
export function browserProcesses(groupId: number): number[] {
  return allProcesses()
    .filter((entry) => entry.pgrp === groupId && isChromium(entry))
    .map((entry) => entry.pid);
}

/** A process and all its live descendants. */
export function processTree(rootPid: number): number[] {
  const entries = allProcesses();
  const tree = new Set<number>([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of entries) {
      if (!tree.has(entry.pid) && tree.has(entry.ppid)) {
        tree.add(entry.pid);
        grew = true;
      }
    }
  }
  return [...tree].filter((pid) => entries.some((entry) => entry.pid === pid));
}

/** Chromium processes descending from `ancestor` (default: this process), whatever their group. */
export function chromiumDescendants(ancestor = process.pid): number[] {
  const entries = allProcesses();
  return processTree(ancestor).filter((pid) => {
    const entry = entries.find((e) => e.pid === pid);
    return pid !== ancestor && entry !== undefined && isChromium(entry);
  });
}

/**
 * Kills whatever is left of a browser's process group. Only Chromium processes are touched, so a
 * recycled group id can never take an unrelated process with it.
 */
export function killBrowserProcesses(groupId: number): number {
  let killed = 0;
  for (const pid of browserProcesses(groupId)) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // Already gone.
    }
  }
  return killed;
}

/** Proportional set size in bytes (shared pages divided among their users), 0 if unreadable. */
export function pssBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const match = rollup.match(/^Pss:\s+(\d+) kB/m);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function totalPssBytes(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + pssBytes(pid), 0);
}
