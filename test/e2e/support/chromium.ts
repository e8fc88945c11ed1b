/**
 * The Chromium processes the stack launched, found in /proc. In this test process: the browsers are
 * the Chromium processes this process spawned; their helpers (renderers, GPU, network, zygotes)
 * descend from them. In a process the test started (a deployed worker): see `chromiumOf`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { browserProcesses, chromiumDescendants } from '../../../services/meeting-session/src/drivers/index.js';
import {
  allProcesses,
  isChromium,
  readEntry,
  type ProcessEntry,
} from '../../../services/meeting-session/src/drivers/process-tree.js';
import { eventually } from '../../support/wait.js';
import { mediaServerPids } from '../../simulators/media/server.js';

/**
 * Every live Chromium process launched from this process, helpers included, but the simulator's
 * media server (its own Chromium, sending the simulated cameras and call audio: not the stack's).
 */
export function chromiumProcesses(): number[] {
  const media = new Set(mediaServerPids().flatMap((pid) => [pid, ...chromiumDescendants(pid)]));
  return chromiumDescendants(process.pid).filter((pid) => !media.has(pid));
}

/** The browser processes themselves (one per browser the driver pool runs). */
export function browserPids(): number[] {
  return chromiumProcesses().filter((pid) => readEntry(pid)?.ppid === process.pid);
}

/** Reads `left` until it is empty or `timeoutMs` has passed; returns what is left then. */
async function waitForNone<T>(left: () => T[], timeoutMs: number): Promise<T[]> {
  return eventually(() => left().length === 0, 'none left', timeoutMs).then(
    () => [],
    () => left(),
  );
}

/**
 * Waits until no Chromium process of this process is left but those of the `earlier` browsers (and
 * their helpers), which belong to someone else; returns what is still there at the deadline.
 */
export async function chromiumGone(earlier: Set<number> = new Set(), timeoutMs = 5_000): Promise<number[]> {
  return waitForNone(() => {
    const theirs = new Set([...earlier].flatMap((pid) => [pid, ...chromiumDescendants(pid)]));
    return chromiumProcesses().filter((pid) => !theirs.has(pid));
  }, timeoutMs);
}

/** Waits until no Chromium process of the browser's process group is alive, orphans included. */
export async function browserGroupGone(browserPid: number, timeoutMs = 5_000): Promise<number[]> {
  return waitForNone(() => browserProcesses(browserPid), timeoutMs);
}

// ---- the Chromium of a process the test started

/** Inherited by every process below the one started with it, whatever becomes of its parent. */
const MARKER = 'NOTETAKER_E2E_MARKER';

/** An environment variable of its own for a process the test starts, to find its Chromium by. */
export function newMarker(): Record<string, string> {
  return { [MARKER]: randomBytes(8).toString('hex') };
}

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * The live Chromium processes of process `pid`, started with `marker` in its environment: every one
 * below it in the process tree, and those that left the tree but carry the marker. Chromium's crash
 * handlers double-fork to run under init in a session of their own, so neither the tree nor the
 * browser's process group holds them; its helpers rewrite their environment block for their process
 * titles, so the marker alone misses those.
 */
export function chromiumOf(pid: number, marker: Record<string, string>): ProcessEntry[] {
  const below = new Set(chromiumDescendants(pid));
  const marked = `${MARKER}=${marker[MARKER]}`;
  return allProcesses().filter((p) => isChromium(p) && (below.has(p.pid) || environOf(p.pid).includes(marked)));
}

/**
 * Waits until none of `processes` runs; returns those still running at the deadline. A zombie
 * counts as gone (readEntry skips it): it has exited and holds no memory, file or socket, and once
 * its parent is dead reaping it is init's job, not the product's. A pid that now names another
 * command was recycled: gone too.
 */
export async function processesGone(processes: ProcessEntry[], timeoutMs = 5_000): Promise<ProcessEntry[]> {
  return waitForNone(() => processes.filter((p) => readEntry(p.pid)?.comm === p.comm), timeoutMs);
}
