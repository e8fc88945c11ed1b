/**
 * How an event ends, and how a lane closes. Every outcome is appended to the store's journal:
 * delivered (2xx), dead_lettered (retries exhausted, refused address, no signing secret), gone
 * (410: this and every later event of the meeting), dropped (a superseded caption_partial while
 * the receiver fails) or missed (never reached us and not in meeting-session's log); failed
 * attempts are recorded as `pending` with their next attempt time.
 */
import type { Logger } from '@notetaker/observability';
import { isoTime } from '@notetaker/iso-time';
import type { EmitterMetrics } from '../metrics.js';
import type { AttemptRecord, DeliveryState, DeliveryStore, OutcomeEntry } from '../store/delivery-store.js';
import { ClosedLanes } from './closed-lanes.js';
import type { MeetingLane, PendingEvent } from './lane.js';

export const GONE_REASON = 'not sent: the receiver answered 410 Gone';

export class Settlement {
  metrics: EmitterMetrics | null = null;
  /** Which closed lane a later event reopens. */
  readonly closedLanes: ClosedLanes;
  /** Lanes being closed: their store writes, which a reopening waits for. */
  private readonly closing = new Map<string, Promise<void>>();

  constructor(
    private readonly store: DeliveryStore,
    private readonly lanes: Map<string, MeetingLane>,
    private readonly logger: Logger,
  ) {
    this.closedLanes = new ClosedLanes(store.callbacks);
  }

  /** Resolves once the meeting's lane, if it is being closed, is closed in the store too. */
  async closed(meetingId: string): Promise<void> {
    // A write that failed was logged where it failed; the store is read afresh either way.
    await this.closing.get(meetingId)?.catch(() => undefined);
  }

  async settle(
    lane: MeetingLane,
    event: PendingEvent,
    state: DeliveryState,
    reason: string | null,
    attempt: AttemptRecord | null,
  ): Promise<void> {
    if (event.settling) return;
    event.settling = true;
    const first = event.firstAttemptAt === null ? null : isoTime(event.firstAttemptAt);
    const written = this.record({
      meetingId: lane.meetingId,
      sequence: event.sequence,
      type: event.type,
      state,
      reason,
      attempt,
      firstAttemptAt: first,
      nextAttemptAt: null,
    });
    if (state === 'delivered') {
      // The receiver has it: the next event may go now. Until the record is written a crash
      // would only send this one again (same event id), never out of order.
      written.catch((err: unknown) =>
        this.logger.error({ err, meetingId: lane.meetingId }, 'recording a delivery failed'),
      );
    } else {
      await written;
    }
    lane.settle(event.sequence);
    this.metrics?.settled(state, event.receivedAt);
    if (state === 'dead_lettered') {
      this.logger.warn({ meetingId: lane.meetingId, sequence: event.sequence, reason }, 'event dead-lettered');
    }
  }

  /** While the receiver fails, an older partial of a caption is worth nothing once a newer one waits. */
  async dropSuperseded(lane: MeetingLane): Promise<void> {
    for (const { event, by } of lane.supersededCaptions()) {
      await this.settle(
        lane,
        event,
        'dropped',
        `superseded by caption_partial #${by} while the receiver was failing`,
        null,
      );
    }
  }

  async markGone(lane: MeetingLane): Promise<void> {
    lane.gone = true;
    await this.close(lane, null, async () => {
      const now = isoTime(Date.now());
      await this.store.callbacks.updateOne(
        { _id: lane.meetingId },
        { $set: { state: 'gone', goneAt: now, finishedAt: now } },
      );
      const unsent = [...lane.pending.values()].filter((e) => !e.settling);
      await Promise.all(unsent.map((e) => this.recordGone(lane.meetingId, e)));
      for (let i = 0; i < unsent.length; i++) this.metrics?.settled('gone', null);
    });
    this.logger.warn(
      { meetingId: lane.meetingId, origin: lane.callback.origin },
      'receiver answered 410 Gone: callback stopped',
    );
  }

  record(entry: OutcomeEntry): Promise<void> {
    return this.store.appendOutcome(entry);
  }

  /** An event never to be sent because the receiver answered 410 Gone. */
  async recordGone(meetingId: string, event: Pick<PendingEvent, 'sequence' | 'type'>): Promise<void> {
    await this.record({
      meetingId,
      sequence: event.sequence,
      type: event.type,
      state: 'gone',
      reason: GONE_REASON,
      attempt: null,
      firstAttemptAt: null,
      nextAttemptAt: null,
    });
  }

  /**
   * Closes a lane whose meeting is over (or silent for a day); its log stays. After a final
   * status, an event later than what it settled reopens it (closed-lanes.ts).
   */
  async finish(lane: MeetingLane): Promise<void> {
    if (lane.closed) return;
    const settledThrough = lane.settledThrough();
    await this.close(lane, lane.finalSequence === null ? null : settledThrough, () =>
      this.store.callbacks.updateOne(
        { _id: lane.meetingId },
        { $set: { finishedAt: isoTime(Date.now()), settledThrough } },
      ),
    );
  }

  /**
   * Takes the lane out at once (a later event finds it closed) and writes it closed; a reopening
   * of the meeting waits until the event bytes are dropped, so it never loses what it stores.
   */
  private async close(lane: MeetingLane, reopensAfter: number | null, write: () => Promise<unknown>): Promise<void> {
    lane.closed = true;
    lane.clearTimers();
    this.lanes.delete(lane.meetingId);
    this.closedLanes.closed(lane.meetingId, reopensAfter);
    const done = (async () => {
      await write();
      await this.forgetEvents(lane);
    })();
    this.closing.set(lane.meetingId, done);
    try {
      await done;
    } finally {
      if (this.closing.get(lane.meetingId) === done) this.closing.delete(lane.meetingId);
    }
  }

  /** A closed lane's events are all settled: their bytes can go (pruning would take them anyway). */
  private async forgetEvents(lane: MeetingLane): Promise<void> {
    await this.store.forgetEvents(lane.meetingId).catch((err: unknown) => {
      this.logger.warn({ err, meetingId: lane.meetingId }, 'dropping the events of a closed lane failed');
    });
  }

  /** Marks every sequence missing before the next known one as missed, so the lane can go on. */
  async markMissed(lane: MeetingLane, reason: string): Promise<void> {
    for (const sequence of lane.missingRange()) {
      await this.record({
        meetingId: lane.meetingId,
        sequence,
        type: 'unknown',
        state: 'missed',
        reason,
        attempt: null,
        firstAttemptAt: null,
        nextAttemptAt: null,
      });
      lane.settle(sequence);
      this.metrics?.settled('missed', null);
      this.logger.warn({ meetingId: lane.meetingId, sequence, reason }, 'event missed');
    }
    lane.gapSince = null;
  }
}
