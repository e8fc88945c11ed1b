/**
 * Chromium raises its own threads' scheduling whenever the process may: its audio threads to real
 * time (SCHED_RR), some of the browser's to nice -8. It may when the worker holds CAP_SYS_NICE, as
 * root outside a container does; in our images it never does (a non-root user, every capability
 * dropped). A bot plays nothing out loud, yet with that privilege the pages' playback threads ran
 * ahead of everything else: at 10 recorded meetings on 2 cores the bot's capture fell behind real
 * time (its audio clock at 0.89-0.99 of the wall's, so a recording lost that share of the meeting)
 * and caption latency's p99 grew by 0.3-1 s, where without it the capture kept real time and the
 * p99 grew by 0.05-0.12 s (test/bench/recording.bench.ts, docs/services/meeting-session.md).
 *
 * So where the worker could raise priorities, Chromium is started through util-linux's `setpriv`
 * with CAP_SYS_NICE taken out of everything it and its children can ever hold: it runs as it runs
 * in a container, whoever starts the worker.
 */
import { readFileSync } from 'node:fs';
import { firstExecutable } from '@notetaker/find-chrome';

const CAP_SYS_NICE = 23n;
const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];

/** Whether a process with this /proc/<pid>/status may raise a thread's scheduling priority. */
export function mayRaisePriority(status: string = readFileSync('/proc/self/status', 'utf8')): boolean {
  const effective = /^CapEff:\s*([0-9a-f]+)\s*$/im.exec(status)?.[1];
  return effective !== undefined && ((BigInt(`0x${effective}`) >> CAP_SYS_NICE) & 1n) === 1n;
}

/** How to start Chromium at `chromePath` with `args`: as it is, or through setpriv without CAP_SYS_NICE. */
export interface ChromiumCommand {
  executablePath: string;
  args: string[];
}

export function chromiumCommand(
  chromePath: string,
  args: string[],
  canRaise = mayRaisePriority(),
  setpriv = firstExecutable(SETPRIV_CANDIDATES),
): ChromiumCommand {
  if (!canRaise || !setpriv) return { executablePath: chromePath, args };
  return {
    executablePath: setpriv,
    // The bounding set bounds what any later exec may gain, so no helper Chromium forks gets it back.
    args: ['--bounding-set=-sys_nice', '--inh-caps=-sys_nice', '--', chromePath, ...args],
  };
}

/** The worker's line at start where it could raise priorities (none where it could not: Chromium cannot either). */
export function priorityNotice(
  canRaise = mayRaisePriority(),
  setpriv = firstExecutable(SETPRIV_CANDIDATES),
): { level: 'info' | 'warn'; message: string } | null {
  if (!canRaise) return null;
  return setpriv
    ? {
        level: 'info',
        message: `Chromium starts through ${setpriv} without CAP_SYS_NICE: its threads keep normal priority, as in a container`,
      }
    : {
        level: 'warn',
        message:
          'this worker may raise thread priorities (CAP_SYS_NICE) and has no setpriv (util-linux): Chromium will run ' +
          "its audio threads in real time, ahead of the bots' capture and captions",
      };
}
