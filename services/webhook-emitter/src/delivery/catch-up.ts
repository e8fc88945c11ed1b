/**
 * Events the emitter did not get live (it was down, or the bus dropped one) come from
 * meeting-session's event log (`svc.meetings.events`), by sequence:
 * - a gap (the lane's head is missing while later events are here) is filled after a short grace
 *   (the missing one may still be on its way into the store), retried with backoff, and given up
 *   as `missed` when the log skips it or after WEBHOOK_GAP_TIMEOUT_MS;
 * - the tail (events after the last one we know) is fetched at start for every open meeting and
 *   for meetings that have been quiet for a sweep interval (their last events may have been lost).
 */
import { call, type Bus } from '@notetaker/bus';
import { routes, ServiceError, type EventEnvelope } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { Emitter } from './emitter.js';
import type { MeetingLane } from './lane.js';

const PAGE = 500;
const MAX_GAP_RETRY_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** A meeting with nothing pending and no event for a day is over, terminal status seen or not. */
const IDLE_CLOSE_MS = 24 * 60 * 60 * 1000;

export interface CatchUpOptions {
  gapGraceMs: number;
  gapTimeoutMs: number;
  sweepIntervalMs: number;
}

export class CatchUp {
  private readonly gapTries = new WeakMap<MeetingLane, number>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly bus: Bus,
    private readonly emitter: Emitter,
    private readonly options: CatchUpOptions,
    private readonly logger: Logger,
  ) {
    emitter.onGap = (lane) => this.scheduleGapFill(lane);
  }

  /** Fetches every open meeting's tail now, then keeps sweeping quiet ones. */
  start(): void {
    for (const lane of this.emitter.lanes.values()) void this.catchUpTail(lane);
    this.sweepTimer = setInterval(() => this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
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
      this.reportFetchFailure(lane, err);
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
      this.reportFetchFailure(lane, err);
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
    const now = Date.now();
    for (const lane of this.emitter.lanes.values()) {
      const quietFor = now - lane.lastEventAt;
      if (quietFor >= IDLE_CLOSE_MS && lane.pending.size === 0 && !lane.busy) void this.emitter.settlement.finish(lane);
      else if (quietFor >= this.options.sweepIntervalMs) void this.catchUpTail(lane);
    }
  }

  private resetGap(lane: MeetingLane): void {
    lane.gapSince = null;
    this.gapTries.delete(lane);
  }

  private reportFetchFailure(lane: MeetingLane, err: unknown): void {
    // meeting-session down is an expected, retried condition: no stack trace for it.
    const code = err instanceof ServiceError ? err.code : undefined;
    if (code === 'no_responders' || code === 'bus_timeout') {
      this.logger.debug({ meetingId: lane.meetingId, code }, 'event log not reachable; will retry');
    } else {
      this.logger.warn({ err, meetingId: lane.meetingId }, 'fetching missed events failed');
    }
  }
}
