/**
 * Who spoke when, as the platform's active-speaker indicator showed it: the names lit at each
 * change, kept for a few minutes. An utterance's speaker is the name lit for most of it, the one
 * whose indicator came on closest to its start winning when two talk at once (Meet hears each on
 * its own track: the utterance that started first is the one who started first).
 */
const KEEP_MS = 5 * 60_000;
/** How much an onset away from the utterance's start counts against a name's overlap. */
const ONSET_WEIGHT = 0.5;
export const UNKNOWN_SPEAKER = 'Unknown';

interface Interval {
  name: string;
  from: number;
  to: number | null;
}

export class SpeakerTimeline {
  private readonly intervals: Interval[] = [];

  /** The names lit from `at` on. */
  speaking(names: string[], at: number): void {
    const lit = new Set(names);
    for (const interval of this.intervals) {
      if (interval.to === null && !lit.has(interval.name)) interval.to = at;
    }
    const open = new Set(this.intervals.filter((i) => i.to === null).map((i) => i.name));
    for (const name of lit) if (!open.has(name)) this.intervals.push({ name, from: at, to: null });
    while (this.intervals.length > 0 && (this.intervals[0].to ?? Infinity) < at - KEEP_MS) this.intervals.shift();
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
    for (const { name, from, to } of this.intervals) {
      const overlap = Math.min(endMs, to ?? Infinity) - Math.max(startMs, from);
      if (overlap <= 0) continue;
      const score = overlap - ONSET_WEIGHT * Math.abs(from - startMs);
      scores.set(name, Math.max(scores.get(name) ?? -Infinity, score));
    }
    return [...scores];
  }
}
