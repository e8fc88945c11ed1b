/**
 * One meeting's event stream, written by its actor alone. `emit` assigns the next sequence at
 * once (1, 2, 3... across all types), serializes the event (the one time it is: that text is
 * stored and published) and queues it; the worker's outbox stores queued events in the registry's
 * event log and publishes each only after the log has it. Events therefore leave in sequence
 * order, stored.
 */
import type { EventEnvelope, EventType } from '@notetaker/contracts';
import { recordingKey, type ActorState } from '../protocol.js';

export interface Emitted {
  event: EventEnvelope;
  /** The event as JSON. */
  json: string;
  /** UTF-8 bytes of `json` (what request budgets count). */
  bytes: number;
  /** performance.now() at emit, for the latency hook. */
  emittedAt: number;
}

/** The actor's state for a record request, with the key it is known by once stored. */
export interface StateToSend {
  state: ActorState;
  key: string;
}

/** What the stream needs from the worker's outbox. */
export interface Outbox {
  /** The stream has events waiting to be stored. */
  ready(stream: EventStream): void;
}

export interface EventStreamOptions {
  meetingId: string;
  outbox: Outbox;
  /** The actor's state after the events emitted so far (kept on the meeting's record). */
  state: () => ActorState;
  /** The registry refused the stream: the meeting is no longer this worker's. */
  onFenced: () => void;
}

export class EventStream {
  readonly meetingId: string;
  private sequence = 0;
  /** Emitted and not yet stored, oldest first. */
  private pending: Emitted[] = [];
  private stopped = false;
  private waiters: Array<() => void> = [];
  private storedStateKey: string | null = null;

  constructor(private readonly options: EventStreamOptions) {
    this.meetingId = options.meetingId;
  }

  get lastSequence(): number {
    return this.sequence;
  }

  emit(type: EventType, payload: Record<string, unknown>): EventEnvelope {
    const event: EventEnvelope = {
      type,
      meetingId: this.meetingId,
      sequence: ++this.sequence,
      timestamp: new Date().toISOString(),
      payload,
    };
    if (this.stopped) return event;
    const json = JSON.stringify(event);
    this.pending.push({ event, json, bytes: Buffer.byteLength(json), emittedAt: performance.now() });
    this.options.outbox.ready(this);
    return event;
  }

  /** Resolves when everything emitted so far is stored and published (or the stream stopped). */
  drained(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops what is not written yet: the meeting is no longer ours to write. */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.wakeWaiters();
  }

  // The outbox's side.

  /** The oldest events not stored yet: at most `max` of them, and `maxBytes` of JSON unless one is larger. */
  peek(max: number, maxBytes: number): Emitted[] {
    let bytes = 0;
    let count = 0;
    while (count < Math.min(max, this.pending.length)) {
      bytes += this.pending[count].bytes;
      if (count > 0 && bytes > maxBytes) break;
      count++;
    }
    return this.pending.slice(0, count);
  }

  /** The oldest `count` events are stored (they are published next). */
  stored(count: number): void {
    this.pending.splice(0, count);
    if (this.pending.length === 0) this.wakeWaiters();
  }

  get waiting(): number {
    return this.pending.length;
  }

  /**
   * The actor's state for the next record request, or undefined when the registry stored it
   * already: most requests carry captions only, which change nothing on the meeting's record.
   * The key holds what the registry compares (registry/record-events.ts).
   */
  stateToSend(): StateToSend | undefined {
    const state = this.options.state();
    const key = `${state.status}|${state.participantCount}|${state.segmentCount}|${state.participants.length}|${recordingKey(state.recording)}|${state.unknownSpeakerSegments ?? 0}`;
    return key === this.storedStateKey ? undefined : { state, key };
  }

  /** The registry stored the state sent with this key. */
  stateStored(key: string): void {
    this.storedStateKey = key;
  }

  fenced(): void {
    this.stop();
    this.options.onFenced();
  }

  private wakeWaiters(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
