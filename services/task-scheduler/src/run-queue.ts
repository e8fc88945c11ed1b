/**
 * Recorded runs waiting for a slot, first in, first out. A waiting run is one entry here, not a
 * started promise chain with its own AbortController, timer and listeners: at a minute boundary
 * with 10,000 tasks and 16 slots, 9,984 runs wait, and all of their timeouts are watched by one
 * timer, armed for the earliest deadline among them.
 */
export interface Waiting {
  /** Epoch ms at which the run times out, waiting included. */
  deadline: number;
}

export class RunQueue<T extends Waiting> {
  private items: Array<T | undefined> = [];
  private head = 0;
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;

  /** `expired` takes each entry whose deadline passed while it waited (it is out of the queue). */
  constructor(private readonly expired: (item: T) => void) {}

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    this.items.push(item);
    this.size++;
    this.arm(item.deadline);
  }

  /** The oldest entry, or undefined when none waits. */
  shift(): T | undefined {
    while (this.head < this.items.length) {
      const item = this.items[this.head];
      this.items[this.head++] = undefined;
      if (item === undefined) continue;
      this.size--;
      this.compact();
      return item;
    }
    return undefined;
  }

  /** Takes an entry out (a cancel: rare, so a scan). */
  remove(item: T): boolean {
    const at = this.items.indexOf(item, this.head);
    if (at < 0) return false;
    this.items[at] = undefined;
    this.size--;
    return true;
  }

  /** Takes every entry out, oldest first. */
  drain(): T[] {
    const all = this.items.slice(this.head).filter((item): item is T => item !== undefined);
    this.items = [];
    this.head = 0;
    this.size = 0;
    this.disarm();
    return all;
  }

  private arm(deadline: number): void {
    if (deadline >= this.timerAt) return;
    this.disarm();
    this.timerAt = deadline;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, deadline - Date.now()));
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private sweep(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    const due: T[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i];
      if (item === undefined) continue;
      if (item.deadline <= now) {
        this.items[i] = undefined;
        this.size--;
        due.push(item);
      } else if (item.deadline < next) {
        next = item.deadline;
      }
    }
    if (next < Infinity) this.arm(next);
    for (const item of due) this.expired(item);
  }

  /** Drops the emptied front once it is most of the array. */
  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.items.length) return;
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}
