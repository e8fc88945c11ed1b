/**
 * Count-only changes of meeting records (participant and segment counts, the names seen so far),
 * written just after the record request that carried them is answered rather than before: every
 * segment changes its meeting's count, and its event (and the events sent with it) would
 * otherwise wait for a record update on the way to being published. Only status and the record
 * show the counts; they follow the events by one turn of the event loop, and the counts of several
 * requests for one meeting waiting together are written once, the newest.
 *
 * A write applies only to a record whose projection is older than it (`projectedThrough`, the last
 * sequence the record reflects), so older counts never overwrite a newer state written meanwhile,
 * by this registry or another. A registry that dies before writing leaves the counts of its last
 * requests behind until the meeting's next change; its end rewrites them all.
 */
import type { Collection, Filter } from '@notetaker/store';
import type { Logger } from '@notetaker/kit';
import { TERMINAL, type MeetingDoc } from './records.js';

export type Counts = Pick<MeetingDoc, 'participantCount' | 'segmentCount' | 'participants'>;

/** The record of a live meeting whose projection is older than sequence `through`. */
export function olderThan(meetingId: string, through: number): Filter {
  return {
    _id: meetingId,
    status: { $nin: TERMINAL },
    $or: [{ projectedThrough: { $lt: through } }, { projectedThrough: { $exists: false } }],
  };
}

export class DeferredCounts {
  private readonly pending = new Map<string, { through: number; counts: Counts }>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly meetings: Collection<MeetingDoc>,
    private readonly logger: Logger,
  ) {}

  /** The meeting's counts after sequence `through`, to be written once the current request is answered. */
  defer(meetingId: string, through: number, counts: Counts): void {
    this.pending.set(meetingId, { through, counts });
    this.running ??= this.run();
  }

  /** A newer state of the meeting is being written now: what waits for it is older. */
  drop(meetingId: string): void {
    this.pending.delete(meetingId);
  }

  /** Resolves once everything deferred so far is written (the registry is stopping). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    // The reply goes out in this turn's microtasks; the writes come after it.
    await new Promise((resolve) => setImmediate(resolve));
    // `pending` is checked and `running` cleared in the same synchronous step: a meeting deferred
    // while a write is under way is either taken by this loop or starts the next one.
    while (this.pending.size > 0) {
      const [meetingId, { through, counts }] = this.pending.entries().next().value!;
      this.pending.delete(meetingId);
      try {
        await this.meetings.updateOne(olderThan(meetingId, through), {
          $set: { ...counts, projectedThrough: through },
        });
      } catch (err) {
        this.logger.warn({ err, meetingId }, 'meeting counts not written; the next change writes them');
      }
    }
    this.running = null;
  }
}
