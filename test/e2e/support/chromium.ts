/**
 * The Chromium processes the stack (running in this test process) launched, found in /proc: the
 * browsers are the Chromium processes this process spawned; their helpers (renderers, GPU, network,
 * zygotes) descend from them.
 */
import { readFileSync } from 'node:fs';
import { browserProcesses, chromiumDescendants } from '../../../services/meeting-session/src/drivers/index.js';
import { sleep } from './world.js';

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Every live Chromium process launched from this process, helpers included. */
export function chromiumProcesses(): number[] {
  return chromiumDescendants(process.pid);
}

/** The browser processes themselves (one per browser the driver pool runs). */
export function browserPids(): number[] {
  return chromiumProcesses().filter((pid) => parentOf(pid) === process.pid);
}

/**
 * Waits until no Chromium process of this process is left but those of the `earlier` browsers (and
 * their helpers), which belong to someone else; returns what is still there at the deadline.
 */
export async function chromiumGone(earlier: Set<number> = new Set(), timeoutMs = 5_000): Promise<number[]> {
  const ours = () => {
    const theirs = new Set([...earlier].flatMap((pid) => [pid, ...chromiumDescendants(pid)]));
    return chromiumProcesses().filter((pid) => !theirs.has(pid));
  };
  const deadline = Date.now() + timeoutMs;
  let left = ours();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = ours();
  }
  return left;
}

/** Waits until no Chromium process of the browser's process group is alive, orphans included. */
export async function browserGroupGone(browserPid: number, timeoutMs = 5_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = browserProcesses(browserPid);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = browserProcesses(browserPid);
  }
  return left;
}
