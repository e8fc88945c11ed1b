/**
 * Who spoke when, as the platform's active-speaker indicator showed it: the names lit at each
 * change, kept for a few minutes. An utterance's speaker is the name lit for most of it, the one
 * whose indicator came on closest to its start winning when two talk at once (Meet hears each on
 * its own track: the utterance that started first is the one who started first).
 *
 * An interval still open (a name lit, and lit on) is kept apart from the closed ones, which close
 * in time order and are let go KEEP_MS after: one indicator stuck on holds back nothing.
 */
const KEEP_MS = 5 * 60_000;
/** How much an onset away from the utterance's start counts against a name's overlap. */
const ONSET_WEIGHT = 0.5;
export const UNKNOWN_SPEAKER = 'Unknown';

interface Interval {
  name: string;
  from: number;
  /** Null while the name is lit. */
  to: number | null;
}

export class SpeakerTimeline {
  /** Names lit now, since when. */
  private readonly open = new Map<string, number>();
  /** Closed intervals, in the order they closed (so by `to`). */
  private closed: Interval[] = [];
  private stale = 0;

  /** The names lit from `at` on. */
  speaking(names: string[], at: number): void {
    const lit = new Set(names);
    for (const [name, from] of this.open) {
      if (lit.has(name)) continue;
      this.open.delete(name);
      this.closed.push({ name, from, to: at });
    }
    for (const name of lit) if (!this.open.has(name)) this.open.set(name, at);
    while (this.stale < this.closed.length && this.closed[this.stale].to! < at - KEEP_MS) this.stale++;
    // Let go in one step once half are stale: shifting one at a time would copy the array each time.
    if (this.stale > 0 && this.stale * 2 >= this.closed.length) {
      this.closed = this.closed.slice(this.stale);
      this.stale = 0;
    }
  }

  /** Intervals kept (open and closed, stale ones not yet let go included). */
  get size(): number {
    return this.open.size + this.closed.length;
  }

  /** The speaker of what was heard from `startMs` to `endMs`, or UNKNOWN_SPEAKER when nobody was lit. */
  speakerOf(startMs: number, endMs: number): string {
    let best = UNKNOWN_SPEAKER;
    let bestScore = -Infinity;
    for (const [name, score] of this.scores(startMs, endMs)) {
      if (score > bestScore) [best, bestScore] = [name, score];
    }
    return best;
  }

  /** Each name lit during `startMs`-`endMs` with its score: its overlap, less its onset's distance from the start. */
  scores(startMs: number, endMs: number): Array<[string, number]> {
    const scores = new Map<string, number>();
    const open = [...this.open].map(([name, from]): Interval => ({ name, from, to: null }));
    for (const { name, from, to } of [...this.closed.slice(this.stale), ...open]) {
      const overlap = Math.min(endMs, to ?? Infinity) - Math.max(startMs, from);
      if (overlap <= 0) continue;
      const score = overlap - ONSET_WEIGHT * Math.abs(from - startMs);
      scores.set(name, Math.max(scores.get(name) ?? -Infinity, score));
    }
    return [...scores];
  }
}
