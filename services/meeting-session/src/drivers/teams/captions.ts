/**
 * Microsoft Teams captions: one row per utterance in a virtualized list that recycles its row
 * elements, so element identity means nothing and rows are matched by content. The rows on screen
 * are a window onto the conversation: older rows leave at the top, new ones arrive at the bottom,
 * and rows still being recognised change text. A row's turn is final after `idleMs` without
 * change, or when a newer row replaces it (it leaves the window).
 */
import { CaptionSource, type CaptionEmitter } from '../caption-source.js';
import type { CaptionTracker } from '../caption-tracker.js';
import { relatedTexts, words } from '../text-merge.js';

export interface TeamsCaptionRow {
  speaker: string;
  text: string;
}

interface RowState {
  source: CaptionSource;
  text: string;
}

export class TeamsCaptionTracker implements CaptionTracker<TeamsCaptionRow> {
  private rows: RowState[] = [];

  constructor(
    private readonly emitter: CaptionEmitter,
    private readonly idleMs: number,
  ) {}

  update(items: TeamsCaptionRow[], now: number): void {
    const offset = alignRows(this.rows, items);
    const kept = this.rows.slice(offset);
    for (const row of this.rows.slice(0, offset)) row.source.finalize();
    for (const row of kept.slice(items.length)) row.source.finalize();
    this.rows = items.map((item, i) => {
      const row = kept[i] ?? { source: new CaptionSource(item.speaker, now, this.emitter), text: '' };
      if (row.text !== item.text) {
        row.text = item.text;
        row.source.setWords(words(item.text), now);
      }
      return row;
    });
  }

  tick(now: number): void {
    for (const row of this.rows) row.source.finalizeIfIdle(now, this.idleMs);
  }

  flush(): void {
    for (const row of this.rows) row.source.finalize();
  }
}

/**
 * How many of the previously seen rows left the top of the window: the shift under which the
 * remaining old rows best match the first new ones. Every matched pair must be the same speaker;
 * identical text counts most, a revision of it less, and a row still being recognised may have been
 * rewritten entirely. When nothing fits, every old row is gone.
 */
function alignRows(previous: RowState[], next: TeamsCaptionRow[]): number {
  let best = previous.length;
  let bestScore = 0;
  for (let offset = 0; offset < previous.length; offset++) {
    let score = 0;
    const pairs = Math.min(previous.length - offset, next.length);
    for (let i = 0; i < pairs && score >= 0; i++) {
      const before = previous[offset + i];
      const after = next[i];
      if (before.source.speaker !== after.speaker) score = -1;
      else if (before.text === after.text) score += 2;
      else if (relatedTexts(words(before.text), words(after.text))) score += 1;
      else if (before.source.active) score += 0.25;
      else score = -1;
    }
    if (score > bestScore) {
      best = offset;
      bestScore = score;
    }
  }
  return best;
}
