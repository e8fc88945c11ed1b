/**
 * The stretches of a meeting its recording does not hold (`gaps`), as the record keeps them:
 * oldest first, each once. A finish may come more than once (a retry, the worker's and then the
 * sweep's), each with the gaps it knows: they are merged, never listed twice.
 */
import type { RecordingGap } from '@notetaker/contracts';

/** As many as one finish may carry (the contract's bound), so a record stays a few hundred KB at most. */
export const MAX_GAPS = 10_000;

/**
 * A lost worker's timeline reached `lostAtMs`, storage holds it up to `storedMs`: the difference
 * is lost, when it is more than this (a batch or so in flight is not worth a gap).
 */
export const LOST_TOLERANCE_MS = 1000;

/**
 * Both lists in one, oldest first: a gap given twice is kept once, and gaps of one reason that
 * overlap or touch become one. Past MAX_GAPS the newest are dropped (`dropped` says how many).
 */
export function mergeGaps(
  kept: readonly RecordingGap[],
  added: readonly RecordingGap[],
): { gaps: RecordingGap[]; dropped: number } {
  const all = [...kept, ...added]
    .map((gap) => ({ ...gap, endMs: Math.max(gap.startMs, gap.endMs) }))
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs || a.reason.localeCompare(b.reason));
  const merged: RecordingGap[] = [];
  const lastOfReason = new Map<RecordingGap['reason'], RecordingGap>();
  for (const gap of all) {
    const last = lastOfReason.get(gap.reason);
    if (last && gap.startMs <= last.endMs) {
      last.endMs = Math.max(last.endMs, gap.endMs);
      continue;
    }
    const copy = { ...gap };
    merged.push(copy);
    lastOfReason.set(gap.reason, copy);
  }
  const dropped = Math.max(0, merged.length - MAX_GAPS);
  return { gaps: merged.slice(0, MAX_GAPS), dropped };
}

/** Whether two lists hold the same gaps (a finish that brings nothing new changes nothing). */
export function sameGaps(a: readonly RecordingGap[], b: readonly RecordingGap[]): boolean {
  return (
    a.length === b.length &&
    a.every((gap, i) => gap.startMs === b[i].startMs && gap.endMs === b[i].endMs && gap.reason === b[i].reason)
  );
}

/** The `worker_lost` gap of a recording whose worker was lost at `lostAtMs`, or none. */
export function lostGap(storedMs: number, lostAtMs: number): RecordingGap | null {
  if (lostAtMs - storedMs <= LOST_TOLERANCE_MS) return null;
  return { startMs: storedMs, endMs: lostAtMs, reason: 'worker_lost' };
}
