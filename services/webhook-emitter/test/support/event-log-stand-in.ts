/**
 * A stand-in for ONE endpoint of another service: meeting-session's `svc.meetings.events` (its
 * event log, read by sequence), served from a real embedded store that the test writes each
 * event to before publishing it, as meeting-session does. Kept minimal on purpose; once
 * meeting-session serves the endpoint, whole-stack tests use the real one.
 */
import { answer, type Bus } from '@notetaker/bus';
import { evtMeeting, queueGroup, routes, type EventEnvelope } from '@notetaker/contracts';
import { openStore, type Store } from '@notetaker/store';

export interface EventLogStandIn {
  /** Writes the event to the log only (as if its live publication were lost). */
  append(event: EventEnvelope): Promise<void>;
  /** Writes it to the log, then publishes it live. */
  publish(event: EventEnvelope): Promise<void>;
  stop(): Promise<void>;
}

export async function startEventLogStandIn(bus: Bus, dataDir: string): Promise<EventLogStandIn> {
  const store: Store = await openStore({ service: 'meeting-log-stand-in', dataDir });
  const events = store.collection<EventEnvelope & { _id: string }>('events');
  const served = answer(
    bus,
    routes.meetings.events,
    async (request) => {
      const docs = await events.find(
        { meetingId: request.meetingId, sequence: { $gt: request.afterSequence } },
        { sort: { sequence: 1 }, limit: request.limit },
      );
      return { events: docs.map(({ _id, ...event }) => event) };
    },
    { queue: queueGroup('meetings') },
  );
  const append = async (event: EventEnvelope) => {
    await events.insertOne({ _id: `${event.meetingId}:${event.sequence}`, ...event });
  };
  return {
    append,
    async publish(event) {
      await append(event);
      bus.publish(evtMeeting(event.meetingId, event.type), event);
    },
    async stop() {
      await served.unsubscribe();
      await store.close();
    },
  };
}
