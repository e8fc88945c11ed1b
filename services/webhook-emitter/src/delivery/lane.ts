/**
 * One meeting's delivery lane: the in-memory view of its pending events, in sequence order.
 * Only the head (`nextSequence`) may be sent, so event n+1 never leaves before event n is
 * settled (delivered, dead-lettered, or dropped as a superseded caption). Events are stored
 * before they are added here; the store is the truth after a restart.
 */
export interface PendingEvent {
  id: string;
  sequence: number;
  type: string;
  body: Buffer;
  captionKey: string | null;
  attempts: number;
  firstAttemptAt: number | null;
  /** Epoch ms; the head is not sent before it. */
  nextAttemptAt: number;
  /** Epoch ms the emitter got it (for the latency metric). */
  receivedAt: number;
  /** Its outcome is being recorded: not to be sent or settled again. */
  settling?: boolean;
}

export interface LaneCallback {
  url: string;
  tokenId: string;
  /** Receiver key for the concurrency limits: scheme://host:port. */
  origin: string;
}

export class MeetingLane {
  nextSequence = 1;
  readonly pending = new Map<number, PendingEvent>();
  /** Sequences being written to the store right now (arrived, not yet pending). */
  readonly receiving = new Set<number>();
  /** Settled sequences beyond the head (dropped captions, recovered state), skipped when reached. */
  readonly settledAhead = new Set<number>();
  highestKnown = 0;
  /**
   * Sequence of the terminal meeting_status, once seen: the lane closes once it and everything
   * known after it (a recording_saved stored late) are settled.
   */
  finalSequence: number | null = null;
  /** Queued in the dispatcher or in flight. */
  busy = false;
  inFlight = false;
  /** The head has failed at least once and is waiting for its next attempt. */
  failing = false;
  retryTimer: NodeJS.Timeout | null = null;
  retryDueAt = 0;
  gapTimer: NodeJS.Timeout | null = null;
  gapSince: number | null = null;
  catchingUp = false;
  lastEventAt = Date.now();
  closed = false;
  /** Closed because the receiver answered 410 Gone (later events are recorded as gone, never sent). */
  gone = false;

  constructor(
    readonly meetingId: string,
    public callback: LaneCallback,
  ) {}

  head(): PendingEvent | undefined {
    return this.pending.get(this.nextSequence);
  }

  /** Already seen: settled, pending, or on its way into the store. */
  knows(sequence: number): boolean {
    return (
      sequence < this.nextSequence ||
      this.pending.has(sequence) ||
      this.receiving.has(sequence) ||
      this.settledAhead.has(sequence)
    );
  }

  startReceiving(sequence: number): void {
    this.receiving.add(sequence);
    this.highestKnown = Math.max(this.highestKnown, sequence);
    this.lastEventAt = Date.now();
  }

  add(event: PendingEvent): void {
    this.receiving.delete(event.sequence);
    if (event.sequence < this.nextSequence || this.settledAhead.has(event.sequence)) return;
    this.pending.set(event.sequence, event);
    this.highestKnown = Math.max(this.highestKnown, event.sequence);
  }

  /** Marks a sequence done and moves the head past every contiguous settled one. */
  settle(sequence: number): void {
    this.pending.delete(sequence);
    this.receiving.delete(sequence);
    this.highestKnown = Math.max(this.highestKnown, sequence);
    if (sequence !== this.nextSequence) {
      if (sequence > this.nextSequence) this.settledAhead.add(sequence);
      return;
    }
    this.nextSequence++;
    while (this.settledAhead.delete(this.nextSequence)) this.nextSequence++;
    this.failing = false;
  }

  /** The head is missing while later events exist and it is not on its way in. */
  hasGap(): boolean {
    return !this.head() && !this.receiving.has(this.nextSequence) && this.highestKnown > this.nextSequence - 1;
  }

  /** The sequences missing from the head up to the first one known. */
  missingRange(): number[] {
    const missing: number[] = [];
    for (let s = this.nextSequence; s <= this.highestKnown && !this.knows(s); s++) missing.push(s);
    return missing;
  }

  /**
   * The final status and every event known after it are settled (`highestKnown` counts what is
   * pending or on its way into the store): nothing left to send.
   */
  isFinished(): boolean {
    return this.finalSequence !== null && this.nextSequence > Math.max(this.finalSequence, this.highestKnown);
  }

  /** The last sequence settled with every one before it. */
  settledThrough(): number {
    return this.nextSequence - 1;
  }

  /**
   * caption_partial events that a later pending caption_partial of the same caption replaces.
   * The head is excluded while it is in flight.
   */
  supersededCaptions(): Array<{ event: PendingEvent; by: number }> {
    const latest = new Map<string, number>();
    for (const event of this.pending.values()) {
      if (event.type !== 'caption_partial' || !event.captionKey) continue;
      latest.set(event.captionKey, Math.max(latest.get(event.captionKey) ?? 0, event.sequence));
    }
    const superseded: Array<{ event: PendingEvent; by: number }> = [];
    for (const event of this.pending.values()) {
      if (event.type !== 'caption_partial' || !event.captionKey) continue;
      if (this.inFlight && event.sequence === this.nextSequence) continue;
      const by = latest.get(event.captionKey) ?? 0;
      if (event.sequence < by) superseded.push({ event, by });
    }
    return superseded.sort((a, b) => a.event.sequence - b.event.sequence);
  }

  clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.retryTimer = null;
    this.gapTimer = null;
  }
}
