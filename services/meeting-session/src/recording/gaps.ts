/**
 * Where a recording misses parts of the meeting, on its timeline (ms from its start), with why:
 * stretches closed, and at most one open per reason (the spool full now, the page not capturing
 * now). Bounded: neighbours of one reason less than MERGE_WITHIN_MS apart are one gap, and past
 * MAX_GAPS the last gap grows instead of a new one starting.
 */
import type { RecordingGap } from '@notetaker/contracts';

type Reason = RecordingGap['reason'];

const MAX_GAPS = 1000;
const MERGE_WITHIN_MS = 1000;

export class Gaps {
  private readonly closed: RecordingGap[] = [];
  private readonly open = new Map<Reason, number>();

  isOpen(reason: Reason): boolean {
    return this.open.has(reason);
  }

  /** A stretch starts missing at `startMs` (no-op when one of that reason is open). */
  start(reason: Reason, startMs: number): void {
    if (!this.open.has(reason)) this.open.set(reason, startMs);
  }

  /** The open stretch of `reason` ends at `endMs`; true when one was open. */
  end(reason: Reason, endMs: number): boolean {
    const startMs = this.open.get(reason);
    if (startMs === undefined) return false;
    this.open.delete(reason);
    this.add({ startMs, endMs, reason });
    return true;
  }

  /** A stretch missing already over (an unreadable slice); true when it changed the list. */
  add(gap: RecordingGap): boolean {
    const startMs = Math.max(0, Math.round(gap.startMs));
    const endMs = Math.round(gap.endMs);
    if (endMs <= startMs) return false;
    const last = this.closed.findLast((g) => g.reason === gap.reason);
    if (last && startMs - last.endMs <= MERGE_WITHIN_MS && startMs >= last.startMs) {
      last.endMs = Math.max(last.endMs, endMs);
    } else if (this.closed.length >= MAX_GAPS) {
      const tail = this.closed[this.closed.length - 1];
      tail.endMs = Math.max(tail.endMs, endMs);
    } else {
      this.closed.push({ startMs, endMs, reason: gap.reason });
      this.closed.sort((a, b) => a.startMs - b.startMs);
    }
    return true;
  }

  /** The closed stretches (what a restart keeps). */
  done(): RecordingGap[] {
    return this.closed.map((g) => ({ ...g }));
  }

  /** Every stretch, the open ones as far as `nowMs`, oldest first. */
  list(nowMs: number): RecordingGap[] {
    const open = [...this.open].map(([reason, startMs]) => ({ startMs, endMs: Math.max(startMs, nowMs), reason }));
    return [...this.done(), ...open].sort((a, b) => a.startMs - b.startMs);
  }
}
