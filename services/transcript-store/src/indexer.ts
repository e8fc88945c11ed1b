/**
 * Keeps the search index in step with the documents: rebuilt from the store at start (in the
 * background, so starting meetings never waits for it), then fed by every flush, this instance's
 * directly and other instances' through their `broadcast.transcripts.saved` notices.
 *
 * While the rebuild runs, flushes are queued and applied after it: the index adds a meeting's
 * segments strictly after the highest index it holds, so a later flush must not overtake the
 * rebuild of the same meeting. For the same reason every addition goes through one FIFO queue.
 * Additions are made in chunks that yield to the event loop: in the one-process stack, indexing
 * thousands of segments at once must not stall every other request.
 */
import { errors, type SearchResult } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { Documents, FlushedSegments } from './documents.js';
import { SearchIndex } from './search-index.js';
import type { Segments } from './segments.js';
import type { ChatMessages } from './chat.js';

const CHUNK = 250;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Indexer {
  readonly index = new SearchIndex();
  private pending: FlushedSegments[] | null = [];
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private built = false;
  private wake: () => void = () => {};

  constructor(
    private readonly documents: Documents,
    private readonly segments: Segments,
    private readonly logger: Logger,
    /** The meetings' chat messages, searchable like the segments. */
    private readonly chat?: ChatMessages,
  ) {}

  get ready(): boolean {
    return this.built;
  }

  /** Reads every written document's segments from the store; resolves when the index is whole. */
  async rebuild(): Promise<void> {
    const started = performance.now();
    for await (const flushed of this.documents.written()) {
      if (this.stopped) return;
      await this.apply(flushed);
    }
    // Queued in their order at once, so no new flush of the same meeting can come between them.
    const pending = this.pending ?? [];
    this.pending = null;
    await Promise.all(pending.map((flushed) => this.add(flushed)));
    this.built = true;
    this.logger.info({ segments: this.index.size, ms: Math.round(performance.now() - started) }, 'search index built');
  }

  /** rebuild(), tried again with backoff (a store that is not reachable yet) until it succeeds. */
  async rebuildUntilDone(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await this.rebuild();
        return;
      } catch (err) {
        this.logger.error({ err, attempt }, 'rebuilding the search index failed; trying again');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(30_000, 500 * 2 ** attempt));
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** Segments just written to a document: the flush is answered once they are searchable. */
  add(flushed: FlushedSegments): Promise<void> {
    if (this.pending) {
      this.pending.push(flushed);
      return Promise.resolve();
    }
    const run = this.queue.then(() => this.apply(flushed));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Another instance wrote segments up to `lastIndex`: read them from the store. */
  async follow(meetingId: string, lastIndex: number): Promise<void> {
    const meta = await this.documents.metas.findOne({ _id: meetingId });
    if (!meta) return;
    const after = this.pending ? -1 : this.index.indexedUpTo(meetingId);
    const chat = (await this.chat?.stored(meetingId))?.slice(0, meta.chatWritten ?? 0);
    await this.add({ meta, segments: await this.segments.range(meetingId, after, lastIndex), chat });
  }

  search(q: string, options: { project?: string; limit: number }): SearchResult[] {
    if (!this.ready) throw errors.unavailable('The search index is being rebuilt; try again shortly');
    return this.index.search(q, options);
  }

  private async apply({ meta, segments, chat }: FlushedSegments): Promise<void> {
    if (!meta.documentPath) return;
    const meeting = {
      meetingId: meta.meetingId,
      project: meta.project,
      title: meta.displayTitle,
      date: meta.startedAt,
      documentPath: meta.documentPath,
    };
    for (let i = 0; i < segments.length; i += CHUNK) {
      if (i > 0) await yieldToEventLoop();
      this.index.add(meeting, segments.slice(i, i + CHUNK));
    }
    if (chat?.length) {
      const messages = chat.map((m) => ({ index: m.index, speaker: m.sender, text: m.text, timestamp: m.timestamp }));
      this.index.add(meeting, messages, 'chat');
    }
  }
}
