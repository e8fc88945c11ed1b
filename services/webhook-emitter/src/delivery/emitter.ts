/**
 * The delivery engine: stores each event (exact bytes) and puts it in its meeting's lane, sends
 * lane heads through the dispatcher, signs each attempt, and hands every result to Settlement.
 * An event of a meeting whose lane has closed reopens it when it comes after what the lane
 * settled (a recording_saved after the final status: closed-lanes.ts).
 */
import crypto from 'node:crypto';
import { CALLBACK_HEADERS, isFinalStatusEvent, type EventEnvelope } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { isoTime } from '@notetaker/iso-time';
import type { EmitterMetrics } from '../metrics.js';
import {
  eventId,
  TERMINAL,
  type AttemptRecord,
  type CallbackDoc,
  type DeliveryStore,
  type EventRecord,
  type StoredEvent,
} from '../store/delivery-store.js';
import type { Dispatcher } from './dispatcher.js';
import { MeetingLane, type PendingEvent } from './lane.js';
import type { RetryPolicy } from './retry-policy.js';
import type { Sender } from './sender.js';
import { signBody } from './signature.js';
import type { SigningSecrets } from './signing-secrets.js';
import { Settlement } from './settlement.js';

export interface EmitterDeps {
  store: DeliveryStore;
  dispatcher: Dispatcher;
  sender: Sender;
  secrets: SigningSecrets;
  retry: RetryPolicy;
  logger: Logger;
}

/** An event just stored: due now, never tried. */
export function arrived(stored: StoredEvent, receivedAt: number): PendingEvent {
  return {
    id: eventId(stored.meetingId, stored.sequence),
    sequence: stored.sequence,
    type: stored.type,
    body: Buffer.from(stored.body, 'utf8'),
    captionKey: stored.captionKey,
    attempts: 0,
    firstAttemptAt: null,
    nextAttemptAt: receivedAt,
    receivedAt,
  };
}

/** An unsettled event folded from the journals after a restart, with its attempts so far. */
export function pendingFromRecord(record: EventRecord): PendingEvent {
  const receivedAt = record.receivedAt ? Date.parse(record.receivedAt) : Date.now();
  const event = arrived({ ...record, body: record.body ?? '' }, receivedAt);
  event.attempts = record.attempts.length;
  event.firstAttemptAt = record.firstAttemptAt ? Date.parse(record.firstAttemptAt) : null;
  event.nextAttemptAt = record.nextAttemptAt ? Date.parse(record.nextAttemptAt) : Date.now();
  return event;
}

export class Emitter {
  readonly lanes = new Map<string, MeetingLane>();
  /** Closed lanes being reopened for a later event (one reopening per meeting at a time). */
  private readonly reopening = new Map<string, Promise<MeetingLane | undefined>>();
  /** Called when a lane's head is missing while later events exist (catch-up fills it). */
  onGap: (lane: MeetingLane) => void = () => {};
  readonly settlement: Settlement;
  private metricsSink: EmitterMetrics | null = null;
  private stopped = false;

  constructor(private readonly deps: EmitterDeps) {
    this.settlement = new Settlement(deps.store, this.lanes, deps.logger);
  }

  set metrics(metrics: EmitterMetrics) {
    this.metricsSink = metrics;
    this.settlement.metrics = metrics;
  }

  openLane(doc: CallbackDoc): MeetingLane {
    const lane = new MeetingLane(doc._id, {
      url: doc.callbackUrl,
      tokenId: doc.tokenId ?? '',
      origin: new URL(doc.callbackUrl).origin,
    });
    lane.finalSequence = doc.finalSequence ?? null;
    this.lanes.get(doc._id)?.clearTimers();
    this.lanes.set(doc._id, lane);
    this.settlement.closedLanes.forget(doc._id);
    return lane;
  }

  /**
   * A meeting's lane rebuilt from the store: settled events move the head past them, pending ones
   * wait with their attempt count and next attempt time as recorded. Missing sequences show up as
   * gaps, which catch-up fills from meeting-session's log.
   */
  async loadLane(doc: CallbackDoc): Promise<MeetingLane> {
    const lane = this.openLane(doc);
    for (const record of await this.deps.store.readMeeting(doc._id)) {
      if (TERMINAL.has(record.state)) lane.settle(record.sequence);
      else if (record.body !== null) lane.add(pendingFromRecord(record));
    }
    lane.failing = (lane.head()?.attempts ?? 0) > 0;
    return lane;
  }

  pendingCount(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.pending.size;
    return count;
  }

  /** Stores a live or caught-up event (exact bytes fixed now) and lets its lane move. */
  async ingest(envelope: EventEnvelope): Promise<void> {
    // The open lane at once (the hot path); a closed one only when there is none.
    const lane = this.lanes.get(envelope.meetingId) ?? (await this.laneFor(envelope));
    const { sequence } = envelope;
    if (!lane || lane.closed) return;
    if (lane.knows(sequence)) {
      this.kick(lane); // a lane reopened for an event it had after all closes again
      return;
    }
    lane.startReceiving(sequence);
    const receivedAt = Date.now();
    const captionId = envelope.payload.captionId;
    const stored: StoredEvent = {
      meetingId: envelope.meetingId,
      sequence,
      type: envelope.type,
      body: JSON.stringify(envelope),
      captionKey: envelope.type === 'caption_partial' && typeof captionId === 'string' ? captionId : null,
    };
    try {
      await this.deps.store.appendEvent(stored);
    } catch (err) {
      // Not stored, so not ours yet: forget it and let catch-up fetch it again.
      lane.receiving.delete(sequence);
      this.deps.logger.error({ err, meetingId: lane.meetingId, sequence }, 'storing an event failed');
      this.kick(lane);
      return;
    }
    if (lane.closed) {
      // The receiver said 410 Gone while this one was being stored: it is never sent.
      if (lane.gone) await this.settlement.recordGone(lane.meetingId, { sequence, type: stored.type });
      return;
    }
    lane.add(arrived(stored, receivedAt));
    if (isFinalStatusEvent(envelope)) {
      lane.finalSequence = sequence;
      await this.deps.store.callbacks.updateOne({ _id: lane.meetingId }, { $set: { finalSequence: sequence } });
    }
    if (lane.failing) await this.settlement.dropSuperseded(lane);
    this.kick(lane);
  }

  /** The meeting's open lane, or its closed one reopened when this event comes after what it settled. */
  private async laneFor({ meetingId, sequence }: EventEnvelope): Promise<MeetingLane | undefined> {
    for (;;) {
      const open = this.lanes.get(meetingId);
      if (open) return open;
      const reopening = this.reopening.get(meetingId);
      if (!reopening) break;
      await reopening;
    }
    const reopening = this.reopen(meetingId, sequence);
    this.reopening.set(meetingId, reopening);
    try {
      return await reopening;
    } finally {
      this.reopening.delete(meetingId);
    }
  }

  private async reopen(meetingId: string, sequence: number): Promise<MeetingLane | undefined> {
    const { settlement, deps } = this;
    await settlement.closed(meetingId); // a close still writing: its bytes dropped first
    if (this.stopped || !(await settlement.closedLanes.reopens(meetingId, sequence))) return undefined;
    const doc = await deps.store.callbacks.findOne({ _id: meetingId });
    if (!doc) return undefined;
    // Open in the store first: a restart from here on recovers the lane and what it gets.
    await deps.store.callbacks.updateOne({ _id: meetingId }, { $set: { finishedAt: null } });
    deps.logger.info({ meetingId, sequence, after: doc.settledThrough }, 'a later event reopened a finished lane');
    this.metricsSink?.reopened();
    return this.loadLane({ ...doc, finishedAt: null });
  }

  kickAll(): void {
    for (const lane of this.lanes.values()) this.kick(lane);
  }

  /** Sends the head when it is due, or arranges to (timer, gap fill, closing the lane). */
  kick(lane: MeetingLane): void {
    if (this.stopped || lane.closed || lane.busy) return;
    if (lane.isFinished()) {
      void this.settlement.finish(lane);
      return;
    }
    const head = lane.head();
    if (!head) {
      if (lane.hasGap()) this.onGap(lane);
      return;
    }
    if (head.settling) return; // whoever settles it kicks again
    lane.gapSince = null;
    if (head.nextAttemptAt > Date.now()) {
      this.wakeAt(lane, head.nextAttemptAt);
      return;
    }
    lane.busy = true;
    this.deps.dispatcher.enqueue({ origin: lane.callback.origin, run: () => this.attempt(lane) });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const lane of this.lanes.values()) lane.clearTimers();
    this.deps.sender.abortAll();
    await this.deps.dispatcher.stop();
    await this.deps.store.flush();
  }

  private wakeAt(lane: MeetingLane, at: number): void {
    if (lane.retryTimer && lane.retryDueAt <= at) return;
    if (lane.retryTimer) clearTimeout(lane.retryTimer);
    lane.retryDueAt = at;
    lane.retryTimer = setTimeout(
      () => {
        lane.retryTimer = null;
        this.kick(lane);
      },
      Math.max(0, at - Date.now()),
    );
  }

  private async attempt(lane: MeetingLane): Promise<void> {
    const head = lane.head();
    if (!head || head.settling || this.stopped || lane.closed) {
      lane.busy = false;
      return;
    }
    lane.inFlight = true;
    try {
      await this.deliver(lane, head);
    } catch (err) {
      // A store failure while recording: try again shortly rather than spin.
      this.deps.logger.error(
        { err, meetingId: lane.meetingId, sequence: head.sequence },
        'delivery bookkeeping failed',
      );
      head.nextAttemptAt = Date.now() + 1000;
    } finally {
      lane.inFlight = false;
      lane.busy = false;
    }
    this.kick(lane);
  }

  private async deliver(lane: MeetingLane, head: PendingEvent): Promise<void> {
    const startedAt = Date.now();
    const deliveryId = crypto.randomUUID();
    const record = (status: number | null, error: string | null, durationMs: number): AttemptRecord => ({
      at: isoTime(startedAt),
      deliveryId,
      status,
      error,
      durationMs,
    });
    let secret: string | null;
    try {
      secret = await this.deps.secrets.get(lane.callback.tokenId);
    } catch {
      head.attempts++;
      head.firstAttemptAt ??= startedAt;
      return this.failed(lane, head, record(null, 'signing secret unavailable (gateway did not answer)', 0), null);
    }
    // Never unsigned: a token the gateway does not know leaves nothing to sign with.
    if (secret === null)
      return this.settlement.settle(lane, head, 'dead_lettered', 'no signing secret: unknown token', null);
    if (this.stopped) return;

    const headers = {
      'Content-Type': 'application/json',
      [CALLBACK_HEADERS.signature]: signBody(secret, head.body),
      [CALLBACK_HEADERS.event]: head.type,
      [CALLBACK_HEADERS.meetingId]: lane.meetingId,
      [CALLBACK_HEADERS.deliveryId]: deliveryId,
      [CALLBACK_HEADERS.eventId]: head.id,
      [CALLBACK_HEADERS.timestamp]: String(Math.floor(startedAt / 1000)),
    };
    const result = await this.deps.sender.post(lane.callback.url, head.body, headers);
    // Cut short by shutdown: not the receiver's failure, so not an attempt; it stays pending.
    if (this.stopped && result.kind !== 'success') return;
    this.metricsSink?.attempt(result.kind, result.durationMs);
    head.attempts++;
    head.firstAttemptAt ??= startedAt;
    const attempt = record(result.status, result.error, result.durationMs);
    switch (result.kind) {
      case 'success':
        return this.settlement.settle(lane, head, 'delivered', null, attempt);
      case 'gone':
        await this.settlement.settle(lane, head, 'gone', result.error, attempt);
        return this.settlement.markGone(lane);
      case 'refused':
        return this.settlement.settle(lane, head, 'dead_lettered', result.error, attempt);
      default:
        return this.failed(lane, head, attempt, result.retryAfterMs);
    }
  }

  private async failed(lane: MeetingLane, head: PendingEvent, attempt: AttemptRecord, retryAfterMs: number | null) {
    const now = Date.now();
    const first = head.firstAttemptAt ?? now;
    const delay = this.deps.retry.nextDelay(head.attempts, first, now, retryAfterMs);
    if (delay === null) {
      return this.settlement.settle(lane, head, 'dead_lettered', `gave up after ${head.attempts} attempts`, attempt);
    }
    head.nextAttemptAt = now + delay;
    lane.failing = true;
    await this.settlement.record({
      meetingId: lane.meetingId,
      sequence: head.sequence,
      type: head.type,
      state: 'pending',
      reason: null,
      attempt,
      firstAttemptAt: isoTime(first),
      nextAttemptAt: isoTime(head.nextAttemptAt),
    });
    await this.settlement.dropSuperseded(lane);
  }
}
