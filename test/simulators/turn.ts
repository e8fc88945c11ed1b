/** A handle on one caption turn of a simulated meeting, for tests to drive step by step. */
import type { CaptionBoard } from './captions.js';
import { sleep } from '../support/wait.js';

export class CaptionTurn {
  constructor(
    private readonly board: CaptionBoard,
    readonly blockId: number,
  ) {}

  /** The recogniser's full text for the turn now (growth, corrections, re-punctuation, shrink). */
  show(fullText: string): this {
    this.board.show(this.blockId, fullText);
    return this;
  }

  /** Shows each step in turn, `stepMs` apart. */
  async play(steps: string[], stepMs = 60): Promise<this> {
    for (const [i, step] of steps.entries()) {
      if (i > 0) await sleep(stepMs);
      this.show(step);
    }
    return this;
  }

  /** The display loses the first `count` words (Meet on long turns); the truth keeps them. */
  dropHead(count: number): this {
    this.board.dropHead(this.blockId, count);
    return this;
  }

  /** The same speaker continues in a new block; see CaptionBoard.split. */
  split(moveLastWords = 0): CaptionTurn {
    return new CaptionTurn(this.board, this.board.split(this.blockId, moveLastWords));
  }

  /** The block leaves the screen. */
  remove(): void {
    this.board.remove(this.blockId);
  }
}
