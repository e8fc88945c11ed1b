/**
 * Count-only changes of meeting records (participant and segment counts, the names seen so far),
 * written just after the record request that carried them is answered rather than before: every
 * segment changes its meeting's count, and its events (and the events sent with them) would
 * otherwise each wait for a record update on the way to being published. The write starts in the
 * next turn of the event loop, so status and the record show the counts as soon as anyone could
 * have seen the events (a webhook, the live page); the counts of one meeting that waited together
 * are written once, the newest. A change of status is never deferred (record-events.ts).
 *
 * A write applies only to a record whose projection is older than it (`projectedThrough`, the last
 * sequence the record reflects), so older counts never overwrite a newer state written meanwhile,
 * by this registry or another. A registry that dies before writing leaves the counts of its last
 * requests behind until the meeting's next change; its end rewrites them all.
 */
import type { Collection, Filter } from '@notetaker/store';
import type { Logger } from '@notetaker/observability';
import type { MeetingDoc } from './records.js';

export type Counts = Pick<
  MeetingDoc,
  'participantCount' | 'segmentCount' | 'participants' | 'recording' | 'transcription'
>;

/**
 * The meeting's record if its projection is older than sequence `through`. An ended one too: a
 * meeting its worker ended was projected through its last event, but one the lease sweep ended
 * (worker_lost) still takes the counts its worker last reported.
 */
function olderThan(meetingId: string, through: number): Filter {
  return {
    _id: meetingId,
    $or: [{ projectedThrough: { $lt: through } }, { projectedThrough: { $exists: false } }],
  };
}

export class DeferredCounts {
  private readonly pending = new Map<string, { through: number; counts: Counts }>();
  private scheduled: NodeJS.Immediate | null = null;
  /** Writes run one batch after the other, in the order they were taken. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly meetings: Collection<MeetingDoc>,
    private readonly logger: Logger,
  ) {}

  /** The meeting's counts after sequence `through`, replacing any older ones still waiting. */
  defer(meetingId: string, through: number, counts: Counts): void {
    this.pending.set(meetingId, { through, counts });
    this.scheduled ??= setImmediate(() => void this.flush());
  }

  /** A newer state of the meeting is being written now: what waits for it is older. */
  drop(meetingId: string): void {
    this.pending.delete(meetingId);
  }

  /** Writes what waits now; resolves once it and every earlier batch are written. */
  flush(): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    const batch = [...this.pending];
    this.pending.clear();
    this.writing = this.writing.then(async () => {
      for (const [meetingId, { through, counts }] of batch) {
        try {
          await this.meetings.updateOne(olderThan(meetingId, through), {
            $set: { ...counts, projectedThrough: through },
          });
        } catch (err) {
          this.logger.warn({ err, meetingId }, 'meeting counts not written; the next change writes them');
        }
      }
    });
    return this.writing;
  }
}
