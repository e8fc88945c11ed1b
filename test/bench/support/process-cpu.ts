/**
 * CPU time from /proc for the benchmarks that measure a process tree over a window: per process
 * (utime + stime), the children a process has reaped (cutime + cstime: the audio-transcription
 * bench's speech engine runs ffmpeg and pocketsphinx so), and the whole machine.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux this runs on. */
export const TICK_S = 1 / 100;

/** The fields of /proc/<pid>/stat after the command, or null once the process is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime of one process, in clock ticks; null once it is gone. */
export function cpuTicks(pid: number): number | null {
  const fields = statFields(pid);
  // After the command: state is field 3, utime field 14, stime field 15.
  return fields ? Number(fields[11]) + Number(fields[12]) : null;
}

/** cutime + cstime: CPU of the children the process has waited for (fields 16 and 17), in clock ticks. */
export function reapedChildrenTicks(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? Number(fields[13]) + Number(fields[14]) : null;
}

/** Busy CPU time of the whole machine (every process, ours and others'), in seconds: /proc/stat's first line. */
export function machineBusyS(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    // user nice system idle iowait irq softirq steal: all but idle and iowait.
    return (f[0] + f[1] + f[2] + f[5] + f[6]) * TICK_S;
  } catch {
    return NaN;
  }
}

/** CPU time of a changing set of processes over a window: from its start (or birth) to its last sample. */
export class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly last = new Map<number, number>();

  constructor(pids: number[]) {
    for (const pid of pids) {
      const ticks = cpuTicks(pid);
      if (ticks === null) continue;
      this.start.set(pid, ticks);
      this.last.set(pid, ticks);
    }
  }

  sample(pids: number[]): void {
    for (const pid of pids) {
      const ticks = cpuTicks(pid);
      if (ticks !== null) this.last.set(pid, ticks);
    }
  }

  seconds(): number {
    let ticks = 0;
    for (const [pid, last] of this.last) ticks += last - (this.start.get(pid) ?? 0);
    return ticks * TICK_S;
  }
}
