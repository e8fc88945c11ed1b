/**
 * When each occurrence's bot goes, on the instance holding the scheduler lease: one timer for the
 * earliest due occurrence, over a heap of (due time, event) with stale entries skipped, so
 * thousands of calendars cost one timer. The store holds the truth; this is only when to look.
 * A bot missed while no instance ran (its time passed) goes at once if the meeting is still on.
 */
import type { Logger } from '@notetaker/observability';
import { joinDecision, type CalendarDoc, type CalendarEventDoc } from './records.js';
import type { CalendarStore } from './store.js';

export interface ScheduleOptions {
  store: CalendarStore;
  leadMs: number;
  /** Starts the occurrence's bot (claims it first: one instance starts it). */
  start(eventKey: string): Promise<void>;
  logger: Logger;
}

/** Timers further away than this are re-armed on the way (setTimeout's limit is ~24.8 days). */
const MAX_TIMER_MS = 60 * 60_000;

export class BotSchedule {
  private readonly due = new Map<string, number>();
  /** The armed occurrences of each calendar, so a reload drops only its own. */
  private readonly byCalendar = new Map<string, Set<string>>();
  private heap: Array<[number, string]> = [];
  private timer: NodeJS.Timeout | null = null;
  private active = false;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: ScheduleOptions) {}

  /** Becomes the instance that starts bots: every calendar's occurrences are looked at. */
  async activate(): Promise<void> {
    this.active = true;
    const calendars = await this.options.store.calendars.find({});
    for (const calendar of calendars) await this.reloadCalendar(calendar._id, calendar);
  }

  deactivate(): void {
    this.active = false;
    this.due.clear();
    this.byCalendar.clear();
    this.heap = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  async stop(): Promise<void> {
    this.deactivate();
    await Promise.all(this.running);
  }

  get size(): number {
    return this.due.size;
  }

  /** Re-reads one calendar's occurrences and arms those whose bot should go (none when it is gone). */
  async reloadCalendar(calendarId: string, known?: CalendarDoc | null): Promise<void> {
    if (!this.active) return;
    const calendar = known ?? (await this.options.store.calendars.findOne({ _id: calendarId }));
    const events = await this.options.store.ofCalendar(calendarId);
    const now = Date.now();
    for (const key of this.byCalendar.get(calendarId) ?? []) this.due.delete(key);
    this.byCalendar.delete(calendarId);
    if (!calendar) return this.rearm();
    for (const event of events) {
      if (event.bot !== 'waiting' || !joinDecision(calendar, event, now).join) continue;
      this.arm(event._id, this.dueAt(event), false);
    }
    this.rearm();
  }

  dueAt(event: CalendarEventDoc): number {
    return Math.max(event.startAt - this.options.leadMs, event.retryAt ?? 0);
  }

  /** Arms (or moves) one occurrence's start. */
  arm(eventKey: string, at: number, rearm = true): void {
    if (!this.active) return;
    this.due.set(eventKey, at);
    const calendarId = eventKey.slice(0, eventKey.indexOf(':'));
    let keys = this.byCalendar.get(calendarId);
    if (!keys) this.byCalendar.set(calendarId, (keys = new Set()));
    keys.add(eventKey);
    push(this.heap, [at, eventKey]);
    if (rearm) this.rearm();
  }

  private rearm(): void {
    if (!this.active) return;
    this.dropStale();
    const first = this.heap[0];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!first) return;
    const wait = Math.min(Math.max(0, first[0] - Date.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => this.fire(), wait);
    this.timer.unref?.();
  }

  private dropStale(): void {
    while (this.heap.length > 0 && this.due.get(this.heap[0][1]) !== this.heap[0][0]) pop(this.heap);
  }

  private fire(): void {
    this.timer = null;
    const now = Date.now();
    for (this.dropStale(); this.heap.length > 0 && this.heap[0][0] <= now; this.dropStale()) {
      const [, key] = pop(this.heap)!;
      this.due.delete(key);
      this.byCalendar.get(key.slice(0, key.indexOf(':')))?.delete(key);
      const run = this.options
        .start(key)
        .catch((err: unknown) => this.options.logger.error({ err, event: key }, 'calendar bot start failed'))
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }
    this.rearm();
  }
}

// A binary min-heap on the due time.
function push(heap: Array<[number, string]>, item: [number, string]): void {
  heap.push(item);
  for (let i = heap.length - 1; i > 0;) {
    const parent = (i - 1) >> 1;
    if (heap[parent][0] <= heap[i][0]) break;
    [heap[parent], heap[i]] = [heap[i], heap[parent]];
    i = parent;
  }
}

function pop(heap: Array<[number, string]>): [number, string] | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0 && last) {
    heap[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && heap[l][0] < heap[m][0]) m = l;
      if (r < heap.length && heap[r][0] < heap[m][0]) m = r;
      if (m === i) break;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  }
  return top;
}
