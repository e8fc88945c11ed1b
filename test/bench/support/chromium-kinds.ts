/**
 * A browser's processes by kind, from their command lines (--type=renderer, gpu-process, utility
 * with its --utility-sub-type: network, storage, audio...; none: the browser itself), for a
 * bench's profile of where CPU and PSS go.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pssBytes } from '../../../services/meeting-session/src/drivers/process-tree.js';
import { cpuTicks, TICK_S } from './process-cpu.js';

export function kindOf(pid: number): string {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return 'gone';
  }
  const type = cmdline.match(/--type=([a-z-]+)/)?.[1];
  if (!type) return 'browser';
  if (type !== 'utility') return type;
  const sub = cmdline.match(/--utility-sub-type=([\w.]+)/)?.[1] ?? '';
  return `utility:${sub.replace(/\.mojom\.\w+$/, '').replace(/^.*\./, '') || '?'}`;
}

/**
 * Each thread of a process by name (/proc/<pid>/task/<tid>/comm: CrRendererMain, Compositor,
 * WebRTC_Worker, AudioOutputDevice...) with its utime + stime in ticks: where a renderer's time goes.
 */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim().replace(/\d+$/, '');
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const key = `${tid}:${name}`;
      out.set(key, Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** CPU seconds per kind over a window (first to last sample) and the last PSS per kind. */
export class KindProfile {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private readonly kinds = new Map<number, string>();
  private pss = new Map<string, { bytes: number; count: number }>();
  private readonly firstThreads = new Map<string, number>();
  private readonly lastThreads = new Map<string, number>();

  sample(pids: number[]): void {
    const pss = new Map<string, { bytes: number; count: number }>();
    for (const pid of pids) {
      const ticks = cpuTicks(pid);
      if (ticks === null) continue;
      if (!this.kinds.has(pid)) this.kinds.set(pid, kindOf(pid));
      if (!this.first.has(pid)) this.first.set(pid, ticks);
      this.last.set(pid, ticks);
      const kind = this.kinds.get(pid)!;
      if (kind === 'renderer') {
        for (const [key, t] of threadTicks(pid)) {
          if (!this.firstThreads.has(key)) this.firstThreads.set(key, t);
          this.lastThreads.set(key, t);
        }
      }
      const entry = pss.get(kind) ?? { bytes: 0, count: 0 };
      entry.bytes += pssBytes(pid);
      entry.count++;
      pss.set(kind, entry);
    }
    this.pss = pss;
  }

  /** "kind xN: cores, MB" per kind, per meeting, largest CPU first. */
  lines(windowS: number, meetings: number): string[] {
    const cpu = new Map<string, number>();
    for (const [pid, last] of this.last) {
      const kind = this.kinds.get(pid)!;
      cpu.set(kind, (cpu.get(kind) ?? 0) + (last - this.first.get(pid)!) * TICK_S);
    }
    const byThread = new Map<string, number>();
    for (const [key, last] of this.lastThreads) {
      const name = key.slice(key.indexOf(':') + 1);
      byThread.set(name, (byThread.get(name) ?? 0) + (last - this.firstThreads.get(key)!) * TICK_S);
    }
    const threads = [...byThread.entries()]
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, s]) => `${name} ${(s / windowS / meetings).toFixed(4)}`);
    return [
      ...[...this.pss.entries()]
        .sort((a, b) => (cpu.get(b[0]) ?? 0) - (cpu.get(a[0]) ?? 0))
        .map(
          ([kind, p]) =>
            `${kind} x${p.count}: ${((cpu.get(kind) ?? 0) / windowS / meetings).toFixed(4)} cores, ${(p.bytes / 1024 / 1024 / meetings).toFixed(1)} MB a meeting`,
        ),
      `renderer threads, cores a meeting: ${threads.join(', ')}`,
    ];
  }
}
