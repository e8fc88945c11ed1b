/**
 * The captions a simulated meeting shows, and the ground truth behind them. Tests describe what a
 * speaker said as successive full texts (the way a recogniser revises its output); the board turns
 * that into what the platform displays: Meet drops the start of long turns and splits turns into
 * blocks, Teams shows one row per utterance. The truth keeps the full final text of every block.
 */

export interface CaptionBlockView {
  id: number;
  speaker: string;
  /** What the platform displays, which may lack the start of a long turn. */
  text: string;
}

export interface TruthSegment {
  blockId: number;
  speaker: string;
  /** The full final text, including words the display dropped. */
  text: string;
  startedAt: string;
  /** Every full text the block went through, in order (partials a driver may report). */
  history: string[];
}

interface Block {
  id: number;
  speaker: string;
  words: string[];
  /** Words hidden from the start of the display. */
  dropped: number;
  removed: boolean;
  startedAt: string | null;
  history: string[];
}

/** ["We", "We should", "We should ship"]: a caption growing word by word. */
export function growWords(text: string, from = ''): string[] {
  const base = from ? from.split(/\s+/) : [];
  const add = text.split(/\s+/).filter(Boolean);
  return add.map((_, i) => [...base, ...add.slice(0, i + 1)].join(' '));
}

/** A turn as a recogniser revises it: word by word, a homophone corrected, then punctuated. */
export function correctedTurn(): string[] {
  return [
    ...growWords('i think their going'),
    'I think they’re going',
    ...growWords('to ship on Friday.', 'I think they’re going'),
  ];
}

export class CaptionBoard {
  private blocks: Block[] = [];
  private nextId = 1;

  constructor(
    private readonly limits: () => { maxBlocks: number; headDropWords: number },
    private readonly changed: () => void,
  ) {}

  create(speaker: string): number {
    const block: Block = {
      id: this.nextId++,
      speaker,
      words: [],
      dropped: 0,
      removed: false,
      startedAt: null,
      history: [],
    };
    this.blocks.push(block);
    this.retireOldBlocks();
    this.changed();
    return block.id;
  }

  /** Sets the full text the recogniser has for the block now. */
  show(id: number, fullText: string): void {
    const block = this.get(id);
    block.words = fullText.split(/\s+/).filter(Boolean);
    block.startedAt ??= new Date().toISOString();
    block.history.push(block.words.join(' '));
    const { headDropWords } = this.limits();
    const visible = block.words.length - block.dropped;
    if (headDropWords > 0 && visible > headDropWords) {
      // Meet trims in chunks, keeping the recent half of the allowance on screen.
      block.dropped = block.words.length - Math.ceil(headDropWords / 2);
    }
    block.dropped = Math.min(block.dropped, Math.max(0, block.words.length - 1));
    this.changed();
  }

  /** Hides the first `count` words of the block from now on; the truth keeps them. */
  dropHead(id: number, count: number): void {
    const block = this.get(id);
    block.dropped = Math.min(block.dropped + count, Math.max(0, block.words.length - 1));
    this.changed();
  }

  /**
   * Continues the speaker's turn in a new block. `moveLastWords` moves the tail of the old block
   * into the new one, as Meet does when it re-segments mid-phrase.
   */
  split(id: number, moveLastWords = 0): number {
    const block = this.get(id);
    const moved = moveLastWords > 0 ? block.words.slice(-moveLastWords) : [];
    if (moved.length) this.show(id, block.words.slice(0, -moved.length).join(' '));
    const next = this.create(block.speaker);
    if (moved.length) this.show(next, moved.join(' '));
    return next;
  }

  remove(id: number): void {
    this.get(id).removed = true;
    this.changed();
  }

  /** Every block leaves the screen (captions turned off for the meeting); the truth keeps them. */
  clear(): void {
    for (const block of this.blocks) block.removed = true;
    this.changed();
  }

  visible(): CaptionBlockView[] {
    return this.blocks
      .filter((b) => !b.removed && b.words.length > 0)
      .map((b) => ({ id: b.id, speaker: b.speaker, text: b.words.slice(b.dropped).join(' ') }));
  }

  truth(): TruthSegment[] {
    return this.blocks
      .filter((b) => b.words.length > 0)
      .map((b) => ({
        blockId: b.id,
        speaker: b.speaker,
        text: b.words.join(' '),
        startedAt: b.startedAt ?? '',
        history: [...b.history],
      }));
  }

  private retireOldBlocks(): void {
    const live = this.blocks.filter((b) => !b.removed);
    const excess = live.length - this.limits().maxBlocks;
    for (const block of live.slice(0, Math.max(0, excess))) block.removed = true;
  }

  private get(id: number): Block {
    const block = this.blocks.find((b) => b.id === id);
    if (!block) throw new Error(`no caption block ${id}`);
    return block;
  }
}
