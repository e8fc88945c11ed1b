/**
 * The timers behind scheduled tasks. Tasks whose schedules fire at the same instants (same
 * normalized expression, same zone) share one group and one timer: at a minute boundary with
 * 10,000 tasks the work is one wake-up and one loop, not 10,000 timers each computing its next date.
 *
 * Groups due at the same instant (every minute in 20 zones is 20 groups) are handed out together,
 * in one call, by whichever wakes first, so the receiver can start all of their executions in one
 * pass; next dates are computed after that.
 * Ticks missed while the process was down or stalled are not replayed: the next date is always
 * computed from the later of now and the tick just fired.
 */
import type { CronSchedule } from './schedule.js';

/** Longest single sleep: a wall-clock jump (NTP step, resumed VM) is noticed within this. */
const MAX_SLEEP_MS = 5 * 60 * 1000;

export interface Tick {
  names: string[];
  scheduledAt: number;
}
export type TickHandler = (ticks: Tick[]) => void;

interface Group {
  schedule: CronSchedule;
  names: Set<string>;
  nextAt: number;
  timer: NodeJS.Timeout | null;
}

export class CronTimers {
  private readonly groups = new Map<string, Group>();
  private readonly memberOf = new Map<string, Group>();
  private due: Array<{ group: Group; tick: Tick }> = [];
  private stopped = false;

  constructor(
    private readonly onTick: TickHandler,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Puts a task on a schedule, moves it to another, or (null) takes it off. */
  set(name: string, schedule: CronSchedule | null): void {
    const current = this.memberOf.get(name);
    if (current && schedule && current.schedule.key === schedule.key) return;
    if (current) {
      current.names.delete(name);
      this.memberOf.delete(name);
      if (current.names.size === 0) this.dropGroup(current);
    }
    if (!schedule || this.stopped) return;
    let group = this.groups.get(schedule.key);
    if (!group) {
      group = { schedule, names: new Set(), nextAt: schedule.nextAfter(Date.now()), timer: null };
      this.groups.set(schedule.key, group);
      this.arm(group);
    }
    group.names.add(name);
    this.memberOf.set(name, group);
  }

  /** When the task's timer fires next (epoch ms), or null when it is not on a schedule here. */
  nextRunAt(name: string): number | null {
    return this.memberOf.get(name)?.nextAt ?? null;
  }

  get size(): number {
    return this.memberOf.size;
  }

  stop(): void {
    this.stopped = true;
    for (const group of this.groups.values()) if (group.timer) clearTimeout(group.timer);
    this.groups.clear();
    this.memberOf.clear();
  }

  private dropGroup(group: Group): void {
    if (group.timer) clearTimeout(group.timer);
    group.timer = null;
    this.groups.delete(group.schedule.key);
  }

  private arm(group: Group): void {
    const delay = Math.min(Math.max(0, group.nextAt - Date.now()), MAX_SLEEP_MS);
    group.timer = setTimeout(() => this.wake(group), delay);
    group.timer.unref?.();
  }

  private wake(group: Group): void {
    group.timer = null;
    if (this.stopped || this.groups.get(group.schedule.key) !== group) return;
    // Timers can wake a millisecond early, and long sleeps are cut into MAX_SLEEP_MS pieces.
    if (Date.now() < group.nextAt) return this.arm(group);
    this.due.push({ group, tick: { names: [...group.names], scheduledAt: group.nextAt } });
    if (this.due.length === 1) setImmediate(() => this.handOut());
  }

  private handOut(): void {
    const due = this.due;
    this.due = [];
    // Timers due at the same instant do not always fire in the same timers phase (each was armed
    // from the loop's cached clock, which lags by a millisecond or more): take the others now
    // instead of after this tick's starts, which at 10,000 tasks means tens of milliseconds late.
    const now = Date.now();
    for (const group of this.groups.values()) {
      if (group.timer && group.nextAt <= now) {
        clearTimeout(group.timer);
        group.timer = null;
        due.push({ group, tick: { names: [...group.names], scheduledAt: group.nextAt } });
      }
    }
    try {
      this.onTick(due.map((d) => d.tick));
    } catch (err) {
      this.onError(err);
    }
    for (const { group } of due) {
      if (this.stopped || this.groups.get(group.schedule.key) !== group) continue;
      try {
        group.nextAt = group.schedule.nextAfter(Math.max(Date.now(), group.nextAt));
      } catch (err) {
        this.onError(err);
        continue;
      }
      this.arm(group);
    }
  }
}
