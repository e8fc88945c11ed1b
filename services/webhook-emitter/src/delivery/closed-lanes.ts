/**
 * What the emitter knows of meetings that have no lane in memory, so that an event coming after
 * a lane closed is sent when it should be and costs next to nothing when it should not.
 *
 * A lane closes once its final meeting_status is settled, yet a meeting may have one more event:
 * its `recording_saved`, appended after the final status when storage was slow (minutes later,
 * when the worker's spool drains). Such an event reopens the lane (it is stored, signed, retried
 * and sent in sequence like every event) and the lane closes again once it is settled. So no lane
 * stays open for a meeting that records nothing. A meeting never registered (no callbackUrl),
 * started from the UI (no key), whose receiver said 410 Gone, or closed as idle without a final
 * status never reopens. The answer comes from the store once per meeting and is kept for the
 * most recent MAX_REMEMBERED meetings, so the events of meetings without a callback do not each
 * cost a read.
 */
import type { Collection } from '@notetaker/store';
import type { CallbackDoc } from '../store/delivery-store.js';

const MAX_REMEMBERED = 10_000;

/** The last sequence a closed lane settled (an event after it reopens the lane), or null: none ever does. */
type Closed = number | null;

export class ClosedLanes {
  private readonly remembered = new Map<string, Closed>();

  constructor(private readonly callbacks: Collection<CallbackDoc>) {}

  /** A lane closed: after `settledThrough` when a later event may reopen it, null when none may. */
  closed(meetingId: string, settledThrough: Closed): void {
    this.remembered.delete(meetingId); // the newest last, so the oldest goes first
    this.remembered.set(meetingId, settledThrough);
    if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value as string);
  }

  /** The registration changed (or a lane opened): the store has the answer again. */
  forget(meetingId: string): void {
    this.remembered.delete(meetingId);
  }

  /** Whether this event of a meeting with no lane in memory reopens its closed lane. */
  async reopens(meetingId: string, sequence: number): Promise<boolean> {
    let closed = this.remembered.get(meetingId);
    if (closed === undefined) {
      const found = closedOf(await this.callbacks.findOne({ _id: meetingId }));
      if (found === undefined) return false;
      closed = found;
      this.closed(meetingId, closed);
    }
    return closed !== null && sequence > closed;
  }
}

/** undefined: registered and open in the store, its lane about to be loaded (ask again next time). */
function closedOf(doc: CallbackDoc | null): Closed | undefined {
  if (!doc || doc.state !== 'active') return null;
  if (!doc.finishedAt) return undefined;
  if (doc.finalSequence == null) return null; // closed as idle: over without a final status
  return doc.settledThrough ?? doc.finalSequence;
}
