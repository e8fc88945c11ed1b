/**
 * The bounds on the finals a speech engine holds (waiting for a slot, or being sent): in bytes of
 * PCM and in count, for all meetings together and for each meeting, so that one meeting talking
 * to a slow engine cannot take every other meeting's share, and a slow engine costs the worker at
 * most the worker's bound. What a bound refuses is not sent: the caller marks it untranscribed.
 */
import type { DropReason } from './held-audio.js';

export interface QueueBounds {
  maxBytes: number;
  meetingMaxBytes: number;
  maxItems: number;
  meetingMaxItems: number;
}

type Refusal = Extract<DropReason, 'meeting_queue_full' | 'worker_queue_full'>;

export class QueuedAudio {
  private total = { bytes: 0, items: 0 };
  private readonly meetings = new Map<string, { bytes: number; items: number }>();

  constructor(private readonly bounds: QueueBounds) {}

  /** Bytes and finals held now, in all or for one meeting. */
  held(meeting?: string): { bytes: number; items: number } {
    const tally = meeting === undefined ? this.total : this.meetings.get(meeting);
    return { bytes: tally?.bytes ?? 0, items: tally?.items ?? 0 };
  }

  /**
   * Takes one final of `bytes` for `meeting` (none: counted against the worker's bound alone):
   * the function that gives it back, or the bound that refuses it.
   */
  take(bytes: number, meeting: string | undefined): (() => void) | Refusal {
    const { maxBytes, meetingMaxBytes, maxItems, meetingMaxItems } = this.bounds;
    const mine = meeting === undefined ? undefined : (this.meetings.get(meeting) ?? { bytes: 0, items: 0 });
    if (mine && (mine.bytes + bytes > meetingMaxBytes || mine.items >= meetingMaxItems)) return 'meeting_queue_full';
    if (this.total.bytes + bytes > maxBytes || this.total.items >= maxItems) return 'worker_queue_full';
    const add = (sign: 1 | -1) => {
      for (const tally of mine ? [this.total, mine] : [this.total]) {
        tally.bytes += sign * bytes;
        tally.items += sign;
      }
    };
    add(1);
    if (mine && meeting !== undefined) this.meetings.set(meeting, mine);
    let taken = true;
    return () => {
      if (!taken) return;
      taken = false;
      add(-1);
      if (mine && mine.items === 0 && meeting !== undefined) this.meetings.delete(meeting);
    };
  }
}
