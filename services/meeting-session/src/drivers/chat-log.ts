/**
 * The driver's record of the chat as read (issue #51): each message once, in the order the panel
 * showed it, however often the panel draws it again (a re-render, a scroll, a new row in a group).
 * A reading is the panel's rows in order with their keys (page-scripts/chat-panel.ts); what was
 * never seen before is new, in that order.
 */
import type { ChatRow } from './page-scripts/chat-panel.js';

/** Keys remembered per meeting; a chat never comes near it (a meeting keeps 5,000 messages). */
const MAX_KEYS = 50_000;

export class ChatLog {
  private readonly seen = new Set<string>();
  private lastSeq = 0;

  /** The rows of a reading not seen before, in order; an older reading than one taken gives nothing. */
  take(seq: number, rows: ChatRow[]): ChatRow[] {
    if (seq <= this.lastSeq) return [];
    this.lastSeq = seq;
    const fresh: ChatRow[] = [];
    for (const row of rows) {
      if (this.seen.has(row.key)) continue;
      if (this.seen.size >= MAX_KEYS) this.seen.clear();
      this.seen.add(row.key);
      fresh.push(row);
    }
    return fresh;
  }

  /** The page was loaded again (its watcher counts from 1 again). */
  restarted(): void {
    this.lastSeq = 0;
  }
}
