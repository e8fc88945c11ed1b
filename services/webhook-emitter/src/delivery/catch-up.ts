/**
 * Events the emitter did not get live (it was down, or the bus dropped one) come from
 * meeting-session's event log (`svc.meetings.events`), by sequence:
 * - a gap (the lane's head is missing while later events are here) is filled after a short grace
 *   (the missing one may still be on its way into the store), retried with backoff, and given up
 *   as `missed` when the log skips it or after WEBHOOK_GAP_TIMEOUT_MS;
 * - the tail (events after the last one we know) is fetched at start for every open meeting and
 *   for meetings that have been quiet for a sweep interval (their last events may have been lost);
 * - at start, meetings whose lane closed after their final status within LATE_EVENT_WINDOW_MS
 *   are asked once for an event after it (a recording_saved published while the emitter was
 *   down): one found reopens the lane (closed-lanes.ts).
 */
import { call, type Bus } from '@notetaker/bus';
import { routes, ServiceError, type EventEnvelope } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { CallbackDoc, DeliveryStore } from '../store/delivery-store.js';
import type { Emitter } from './emitter.js';
import type { MeetingLane } from './lane.js';

const PAGE = 500;
const MAX_GAP_RETRY_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** A meeting with nothing pending and no event for a day is over, terminal status seen or not. */
const IDLE_CLOSE_MS = 24 * 60 * 60 * 1000;
/** How long after its close a meeting may still get a late event worth asking for at start. */
const LATE_EVENT_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The most closed meetings asked at one start (newest first), one request at a time. */
const LATE_EVENT_MEETINGS = 1000;

export interface CatchUpOptions {
  gapGraceMs: number;
  gapTimeoutMs: number;
  sweepIntervalMs: number;
}

export class CatchUp {
  private readonly gapTries = new WeakMap<MeetingLane, number>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Meetings closed after their final status lately, still to be asked for a late event (at start). */
  private closedToAsk: CallbackDoc[] = [];
  private askingClosed = false;

  constructor(
    private readonly bus: Bus,
    private readonly store: DeliveryStore,
    private readonly emitter: Emitter,
    private readonly options: CatchUpOptions,
    private readonly logger: Logger,
  ) {
    emitter.onGap = (lane) => this.scheduleGapFill(lane);
  }

  /** Fetches every open meeting's tail now, and recently closed ones' late events; then keeps sweeping quiet ones. */
  start(): void {
    for (const lane of this.emitter.lanes.values()) void this.catchUpTail(lane);
    void this.findClosed();
    this.sweepTimer = setInterval(() => this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  private async findClosed(): Promise<void> {
    const since = new Date(Date.now() - LATE_EVENT_WINDOW_MS).toISOString();
    try {
      this.closedToAsk = await this.store.closedSince(since, LATE_EVENT_MEETINGS);
    } catch (err) {
      this.logger.warn({ err }, 'reading the recently closed meetings failed: their late events are not asked for');
      return;
    }
    await this.askClosed();
  }

  /**
   * Asks each recently closed meeting once for events after what its lane settled (published
   * while the emitter was down); the first one found reopens the lane, which takes the rest and
   * any gap as usual. When meeting-session does not answer, the next sweep goes on.
   */
  private async askClosed(): Promise<void> {
    if (this.askingClosed) return;
    this.askingClosed = true;
    try {
      while (!this.stopped && this.closedToAsk.length > 0) {
        const doc = this.closedToAsk[0];
        const after = doc.settledThrough ?? doc.finalSequence ?? 0;
        if (!this.emitter.lanes.has(doc._id)) {
          const { events } = await call(
            this.bus,
            routes.meetings.events,
            { meetingId: doc._id, afterSequence: after, limit: PAGE },
            { timeoutMs: REQUEST_TIMEOUT_MS },
          );
          for (const event of events.filter((e) => e.meetingId === doc._id && e.sequence > after)) {
            await this.emitter.ingest(event);
          }
        }
        this.closedToAsk.shift();
      }
    } catch (err) {
      this.reportFetchFailure(this.closedToAsk[0]?._id ?? '', err);
    } finally {
      this.askingClosed = false;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  scheduleGapFill(lane: MeetingLane): void {
    if (this.stopped || lane.gapTimer || lane.catchingUp || lane.closed) return;
    const tries = this.gapTries.get(lane) ?? 0;
    lane.gapSince ??= Date.now();
    const delay = tries === 0 ? this.options.gapGraceMs : Math.min(MAX_GAP_RETRY_MS, 500 * 2 ** tries);
    lane.gapTimer = setTimeout(() => {
      lane.gapTimer = null;
      void this.fillGap(lane);
    }, delay);
  }

  async catchUpTail(lane: MeetingLane): Promise<void> {
    if (this.stopped || lane.catchingUp || lane.closed) return;
    lane.catchingUp = true;
    try {
      await this.fetchAfter(lane, lane.highestKnown);
    } catch (err) {
      this.reportFetchFailure(lane.meetingId, err);
    } finally {
      lane.catchingUp = false;
    }
    this.emitter.kick(lane);
  }

  private async fillGap(lane: MeetingLane): Promise<void> {
    if (this.stopped || lane.closed || !lane.hasGap()) {
      this.resetGap(lane);
      return;
    }
    const missing = lane.nextSequence;
    lane.catchingUp = true;
    let fetched: EventEnvelope[] | null = null;
    try {
      fetched = await this.fetchAfter(lane, missing - 1, lane.highestKnown);
    } catch (err) {
      this.reportFetchFailure(lane.meetingId, err);
    } finally {
      lane.catchingUp = false;
    }
    if (!lane.closed && lane.nextSequence === missing && lane.hasGap()) {
      const logSkipsIt = fetched !== null && fetched.length > 0 && fetched[0].sequence > missing;
      const waited = Date.now() - (lane.gapSince ?? Date.now());
      if (logSkipsIt || waited >= this.options.gapTimeoutMs) {
        const reason = logSkipsIt ? "not in meeting-session's event log" : `not received within ${waited} ms`;
        await this.emitter.settlement.markMissed(lane, reason);
        this.resetGap(lane);
      } else {
        this.gapTries.set(lane, (this.gapTries.get(lane) ?? 0) + 1);
        this.scheduleGapFill(lane);
      }
    } else {
      this.resetGap(lane);
    }
    this.emitter.kick(lane);
  }

  /** Asks the log for events after `after` (up to `until` when given) and ingests them in order. */
  private async fetchAfter(lane: MeetingLane, after: number, until?: number): Promise<EventEnvelope[]> {
    const all: EventEnvelope[] = [];
    let cursor = after;
    for (;;) {
      const { events } = await call(
        this.bus,
        routes.meetings.events,
        { meetingId: lane.meetingId, afterSequence: cursor, limit: PAGE },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
      const ours = events.filter((e) => e.meetingId === lane.meetingId && e.sequence > cursor);
      for (const event of ours) await this.emitter.ingest(event);
      all.push(...ours);
      if (ours.length === 0) break; // a reply can be short of PAGE and still not be the end
      cursor = ours[ours.length - 1].sequence;
      if (until !== undefined && cursor >= until) break;
    }
    if (all.length > 0) this.logger.info({ meetingId: lane.meetingId, after, count: all.length }, 'caught up events');
    return all;
  }

  private sweep(): void {
    if (this.closedToAsk.length > 0) void this.askClosed();
    const now = Date.now();
    for (const lane of this.emitter.lanes.values()) {
      const quietFor = now - lane.lastEventAt;
      if (quietFor >= IDLE_CLOSE_MS && lane.pending.size === 0 && lane.receiving.size === 0 && !lane.busy) {
        void this.emitter.settlement.finish(lane);
      } else if (quietFor >= this.options.sweepIntervalMs) void this.catchUpTail(lane);
    }
  }

  private resetGap(lane: MeetingLane): void {
    lane.gapSince = null;
    this.gapTries.delete(lane);
  }

  private reportFetchFailure(meetingId: string, err: unknown): void {
    // meeting-session down is an expected, retried condition: no stack trace for it.
    const code = err instanceof ServiceError ? err.code : undefined;
    if (code === 'no_responders' || code === 'bus_timeout') {
      this.logger.debug({ meetingId, code }, 'event log not reachable; will retry');
    } else {
      this.logger.warn({ err, meetingId }, 'fetching missed events failed');
    }
  }
}
