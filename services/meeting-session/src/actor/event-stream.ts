/**
 * One meeting's event stream, written by its actor alone. `emit` assigns the next sequence at
 * once (1, 2, 3... across all types); a writer hands pending events to the registry's event log
 * in batches (group commit: while one batch is being stored the next one gathers) and publishes
 * each event only after the log has it. Events therefore leave in sequence order, stored.
 */
import { evtMeeting, ServiceError, type EventEnvelope, type EventType } from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
import { FENCED_CODE, subjects, type ActorState, type RecordRequest } from '../protocol.js';

const MAX_BATCH = 200;
const MAX_BACKOFF_MS = 5000;

export interface EventStreamOptions {
  bus: Bus;
  logger: Logger;
  meetingId: string;
  workerId: string;
  /** The actor's state after the events handed over so far (kept on the meeting's record). */
  state: () => ActorState;
  /** The registry refused the stream: the meeting is no longer this worker's. */
  onFenced: () => void;
  /** Called as each event is published, with the time it was emitted (performance.now()). */
  onPublished?: (event: EventEnvelope, emittedAt: number) => void;
}

export class EventStream {
  private sequence = 0;
  private pending: Array<{ event: EventEnvelope; emittedAt: number }> = [];
  private writing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: EventStreamOptions) {}

  get lastSequence(): number {
    return this.sequence;
  }

  emit(type: EventType, payload: Record<string, unknown>): EventEnvelope {
    const event: EventEnvelope = {
      type,
      meetingId: this.options.meetingId,
      sequence: ++this.sequence,
      timestamp: new Date().toISOString(),
      payload,
    };
    if (this.stopped) return event;
    this.pending.push({ event, emittedAt: performance.now() });
    this.writing ??= this.write().finally(() => {
      this.writing = null;
    });
    return event;
  }

  /** Resolves when everything emitted so far is stored and published (or the stream stopped). */
  async drained(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Drops what is not written yet: the meeting is no longer ours to write. */
  stop(): void {
    this.stopped = true;
    this.pending = [];
  }

  private async write(): Promise<void> {
    // Linger one turn of the event loop before the first batch: events a driver reports together
    // (a participant list, a burst of caption updates) then share one write.
    await new Promise((resolve) => setImmediate(resolve));
    let backoff = 50;
    while (this.pending.length > 0 && !this.stopped) {
      const batch = this.pending.slice(0, MAX_BATCH);
      const request: RecordRequest = {
        meetingId: this.options.meetingId,
        workerId: this.options.workerId,
        events: batch.map((b) => b.event),
        state: this.options.state(),
      };
      try {
        await this.options.bus.request(subjects.record, request, { timeoutMs: 10_000 });
      } catch (err) {
        if (err instanceof ServiceError && err.code === FENCED_CODE) {
          this.stop();
          this.options.onFenced();
          return;
        }
        // The registry is restarting or the bus is down: keep the order, retry the same batch.
        this.options.logger.warn({ err, meetingId: this.options.meetingId }, 'storing events failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        continue;
      }
      backoff = 50;
      this.pending.splice(0, batch.length);
      for (const { event, emittedAt } of batch) {
        this.options.bus.publish(evtMeeting(event.meetingId, event.type), event);
        this.options.onPublished?.(event, emittedAt);
      }
    }
  }
}
