/**
 * A worker's outbox: it stores the events of all the worker's actors in the registry's event log
 * and publishes them once stored. Group commit across actors: one record request carries every
 * stream that has events waiting, and while it is in flight the next one gathers. At 50 busy
 * meetings that is one bus round trip and one log write where there were fifty.
 */
import { evtMeeting, type EventEnvelope } from '@notetaker/contracts';
import { call, JsonText, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { Emitted, EventStream, Outbox, StateToSend } from '../actor/event-stream.js';
import { protocol, type RecordReply, type RecordRequest } from '../protocol.js';

/** Per meeting and per request: a catching-up stream cannot starve the others. */
const MAX_PER_MEETING = 200;
/**
 * UTF-8 bytes of the events' JSON per request. The request carries each meeting's events as one
 * JSON string, which escapes every quote and backslash once more: at most twice this, so a
 * request stays below NATS' default 1 MB message limit whatever the captions hold.
 */
const MAX_REQUEST_BYTES = 400 * 1024;
const MAX_BACKOFF_MS = 5000;

export interface EventOutboxOptions {
  bus: Bus;
  logger: Logger;
  workerId: string;
  /** Called as each event is published, with the time it was emitted (performance.now()). */
  onPublished?: (event: EventEnvelope, emittedAt: number) => void;
}

export class EventOutbox implements Outbox {
  /** Streams with events waiting, in the order they became ready (fair across meetings). */
  private readonly waiting = new Set<EventStream>();
  private running = false;

  constructor(private readonly options: EventOutboxOptions) {}

  ready(stream: EventStream): void {
    this.waiting.add(stream);
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    // Set and cleared in the same synchronous steps as the loop's checks of `waiting`: a stream
    // that becomes ready is either seen by this loop or starts the next one, never left waiting.
    this.running = true;
    try {
      // Linger one turn of the event loop: what the drivers report together (a participant list,
      // a burst of caption updates in several meetings) then shares one request.
      await new Promise((resolve) => setImmediate(resolve));
      let backoff = 50;
      while (this.waiting.size > 0) {
        const taken = this.take();
        if (taken.length === 0) continue;
        const request: RecordRequest = {
          workerId: this.options.workerId,
          meetings: taken.map(({ stream, batch, state }) => ({
            meetingId: stream.meetingId,
            first: batch[0].event.sequence,
            last: batch[batch.length - 1].event.sequence,
            events: `[${batch.map((b) => b.json).join(',')}]`,
            ...(state && { state: state.state }),
          })),
        };
        let reply: RecordReply;
        try {
          // Only the reply is checked here: the registry parses the request (once) as it answers.
          reply = await call(this.options.bus, protocol.record, request, { timeoutMs: 10_000 });
        } catch (err) {
          // The registry is restarting or the bus is down: keep the order, send the same events again.
          this.options.logger.warn({ err, meetings: taken.length }, 'storing events failed; retrying');
          for (const { stream } of taken) this.waiting.add(stream);
          await new Promise((resolve) => setTimeout(resolve, backoff));
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
          continue;
        }
        backoff = 50;
        const fenced = new Set(reply.fenced);
        for (const { stream, batch, state } of taken) {
          if (fenced.has(stream.meetingId)) {
            stream.fenced();
            continue;
          }
          if (state) stream.stateStored(state.key);
          for (const { event, json, emittedAt } of batch) {
            this.options.bus.publish(evtMeeting(event.meetingId, event.type), new JsonText(json));
            this.options.onPublished?.(event, emittedAt);
          }
          stream.stored(batch.length);
          if (stream.waiting > 0) this.waiting.add(stream);
        }
      }
    } catch (err) {
      this.options.logger.error({ err }, 'event outbox failed');
    } finally {
      this.running = false;
    }
  }

  /** The next request's share of each waiting stream; streams left over stay first in line. */
  private take(): Array<{ stream: EventStream; batch: Emitted[]; state: StateToSend | undefined }> {
    const taken = [];
    let budget = MAX_REQUEST_BYTES;
    for (const stream of this.waiting) {
      if (budget <= 0) break;
      this.waiting.delete(stream);
      const batch = stream.peek(MAX_PER_MEETING, budget);
      if (batch.length === 0) continue; // stopped meanwhile
      for (const { bytes } of batch) budget -= bytes;
      taken.push({ stream, batch, state: stream.stateToSend() });
    }
    return taken;
  }
}
