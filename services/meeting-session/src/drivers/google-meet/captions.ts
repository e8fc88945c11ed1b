/**
 * Google Meet captions: one block per turn, its text rewritten in place. Blocks are told apart by
 * element identity (the page gives each block element a key). A turn is final when the speaker
 * changes (a block from someone else appears), when its block goes, or after `idleMs` without
 * change. Meet drops the start of long turns: the dropped words are kept. A turn Meet splits into
 * two blocks of the same speaker becomes two segments, the older finalised once it stops changing.
 */
import { CaptionSource, type CaptionEmitter } from '../caption-source.js';
import type { CaptionTracker } from '../caption-tracker.js';
import { headDropOffset, normWord, words } from '../text-merge.js';

export interface MeetCaptionBlock {
  key: number;
  speaker: string;
  text: string;
}

interface BlockState {
  source: CaptionSource;
  /** The text as displayed, as words. */
  visible: string[];
  /** Words the display has dropped from the start of the block. */
  dropped: string[];
}

/** How long a block that went away can come back as a re-rendered element and keep its history. */
const REBIRTH_MS = 10_000;

export class MeetCaptionTracker implements CaptionTracker<MeetCaptionBlock> {
  private readonly blocks = new Map<number, BlockState>();
  private gone: Array<{ state: BlockState; at: number }> = [];

  constructor(
    private readonly emitter: CaptionEmitter,
    private readonly idleMs: number,
  ) {}

  update(items: MeetCaptionBlock[], now: number): void {
    const present = new Set(items.map((item) => item.key));
    for (const [key, state] of this.blocks) {
      if (present.has(key)) continue;
      state.source.finalize();
      this.blocks.delete(key);
      this.gone.push({ state, at: now });
    }
    this.gone = this.gone.filter((g) => now - g.at < REBIRTH_MS);

    for (const item of items) {
      let state = this.blocks.get(item.key);
      if (state && state.source.speaker !== item.speaker) {
        state.source.finalize();
        state = undefined;
      }
      const next = words(item.text);
      if (!state) {
        state = this.adoptRerendered(item.speaker, next) ?? this.startBlock(item.speaker, now);
        this.blocks.set(item.key, state);
      }
      if (next.join(' ') === state.visible.join(' ')) continue;
      const dropped = headDropOffset(state.visible, next);
      state.dropped.push(...state.visible.slice(0, dropped));
      state.visible = next;
      state.source.setWords([...state.dropped, ...next], now);
    }
  }

  tick(now: number): void {
    for (const state of this.blocks.values()) state.source.finalizeIfIdle(now, this.idleMs);
  }

  flush(): void {
    for (const state of this.blocks.values()) state.source.finalize();
  }

  private startBlock(speaker: string, now: number): BlockState {
    // A block from someone else means the turns of everyone else are over.
    for (const other of this.blocks.values()) if (other.source.speaker !== speaker) other.source.finalize();
    return { source: new CaptionSource(speaker, now, this.emitter), visible: [], dropped: [] };
  }

  /**
   * Meet rebuilds the caption elements on some layout changes: a "new" block showing the text of
   * one that just went is that block again, and its words were already reported.
   */
  private adoptRerendered(speaker: string, next: string[]): BlockState | undefined {
    const index = this.gone.findIndex(({ state }) => {
      if (state.source.speaker !== speaker || !state.visible.length) return false;
      const n = Math.min(3, state.visible.length, next.length);
      return (
        n > 0 &&
        next.length >= state.visible.length - 1 &&
        state.visible.slice(0, n).every((word, i) => normWord(word) === normWord(next[i]))
      );
    });
    if (index < 0) return undefined;
    const [{ state }] = this.gone.splice(index, 1);
    return state;
  }
}
