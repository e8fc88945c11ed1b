/**
 * The text of one caption element (a Meet block, a Teams row) and the turn it currently feeds.
 * It is where the finalisation promises are kept: a partial on every change, a turn finalised at
 * most once, and words that were finalised never reported again if the element keeps changing.
 */
import type { CaptionUpdate, FinalSegment } from './driver.js';
import { wordsAfter } from './text-merge.js';

export interface CaptionEmitter {
  partial(update: CaptionUpdate): void;
  final(segment: FinalSegment): void;
  /** A new stable id for a caption turn. */
  newId(): string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class CaptionSource {
  /** The element's full text as words, including any the display dropped from its start. */
  private current: string[] = [];
  /** Everything already finalised from this element. */
  private done: string[] = [];
  private turn: { id: string; startedAt: number; text: string } | null = null;
  lastChange: number;

  constructor(
    readonly speaker: string,
    now: number,
    private readonly emit: CaptionEmitter,
  ) {
    this.lastChange = now;
  }

  get active(): boolean {
    return this.turn !== null;
  }

  get allWords(): readonly string[] {
    return this.current;
  }

  setWords(current: string[], now: number): void {
    this.current = current;
    this.lastChange = now;
    const text = wordsAfter(this.done, current).join(' ');
    if (!this.turn) {
      if (!text) return;
      this.turn = { id: this.emit.newId(), startedAt: now, text: '' };
    }
    if (text === this.turn.text) return;
    this.turn.text = text;
    if (text) this.emit.partial({ captionId: this.turn.id, speaker: this.speaker, text, timestamp: iso(now) });
  }

  finalizeIfIdle(now: number, idleMs: number): void {
    if (this.turn && now - this.lastChange >= idleMs) this.finalize();
  }

  finalize(): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = null;
    this.done = [...this.current];
    if (turn.text) this.emit.final({ speaker: this.speaker, text: turn.text, timestamp: iso(turn.startedAt) });
  }
}
