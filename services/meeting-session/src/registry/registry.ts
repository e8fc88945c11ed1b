/**
 * The registry half of meeting-session: it owns the store (records, claims, event log, leases)
 * and serves the public verbs in the service's queue group, so any number of registries can run
 * against one database. It never runs a browser.
 */
import {
  errors,
  meetingEventsRequest,
  meetingRef,
  meetingsStatus,
  noticeMeeting,
  queueGroup,
  ServiceError,
  svc,
} from '@notetaker/contracts';
import type { Bus, Subscription } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
import type { Store } from '@notetaker/store';
import { subjects, warningsRequest } from '../protocol.js';
import { EventLog } from './event-log.js';
import { endLostMeeting, renewLease, sweep, type LeaseDeps } from './leases.js';
import { parseRequest } from '../parse.js';
import { recordEvents } from './record-events.js';
import { DeferredCounts } from './deferred-counts.js';
import { isStoppable, NON_TERMINAL, Records, toRecord, toSummary } from './records.js';
import { startMeeting } from './start-meeting.js';

export interface RegistryOptions {
  bus: Bus;
  store: Store;
  logger: Logger;
  leaseMs: number;
  sweepMs: number;
  retentionMs: number;
  /** True when no other process can reach this registry (in-process bus): every older worker is dead. */
  alone: boolean;
  onRefusedForCapacity?: () => void;
}

export interface RunningRegistry {
  /** Runs one lease sweep now (the timer runs them anyway). */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

const MEETING_ENDED = 'Meeting has ended';

export async function startRegistry(options: RegistryOptions): Promise<RunningRegistry> {
  const { bus, logger } = options;
  const records = new Records(options.store);
  const log = new EventLog(options.store);
  const counts = new DeferredCounts(records.meetings, logger);
  await records.init();
  const leaseDeps: LeaseDeps = {
    bus,
    records,
    log,
    logger,
    leaseMs: options.leaseMs,
    retentionMs: options.retentionMs,
  };

  // Meetings left behind by a previous process of an embedded install end now, not a lease later.
  if (options.alone) await sweep(leaseDeps, { allOthersGone: true });

  const queue = { queue: queueGroup('meetings') };
  const subs: Subscription[] = [
    bus.serve(svc('meetings', 'start'), (data) => startMeeting({ bus, records, logger, onRefusedForCapacity: options.onRefusedForCapacity }, data), queue),
    bus.serve(
      svc('meetings', 'stop'),
      async (data) => {
        const { caller, meetingId } = parseRequest(meetingRef, data);
        const doc = await records.owned(caller, meetingId);
        if (!isStoppable(doc.status)) throw errors.conflict(MEETING_ENDED);
        try {
          await bus.request(subjects.actorStop(meetingId), {}, { timeoutMs: 5000 });
        } catch (err) {
          if (!(err instanceof ServiceError) || err.code !== 'no_responders') throw err;
          // Nobody hosts the actor any more: the stop finishes what the lease sweep would.
          await endLostMeeting(leaseDeps, meetingId);
        }
        return { meetingId, status: 'stopping' as const };
      },
      queue,
    ),
    bus.serve(
      svc('meetings', 'status'),
      async (data) => {
        const { caller } = parseRequest(meetingsStatus, data);
        return { meetings: (await records.liveOf(caller)).map(toSummary) };
      },
      queue,
    ),
    bus.serve(
      svc('meetings', 'get'),
      async (data) => {
        const { caller, meetingId } = parseRequest(meetingRef, data);
        return toRecord(await records.owned(caller, meetingId));
      },
      queue,
    ),
    bus.serve(
      svc('meetings', 'events'),
      async (data) => {
        const request = parseRequest(meetingEventsRequest, data);
        return { events: await log.after(request.meetingId, request.afterSequence, request.limit) };
      },
      queue,
    ),
    bus.serve(subjects.record, (data) => recordEvents({ records, log, counts }, data), queue),
    bus.serve(subjects.heartbeat, (data) => renewLease(leaseDeps, data), queue),
    bus.serve(
      subjects.warnings,
      async (data) => {
        const { meetingId, workerId, warnings } = parseRequest(warningsRequest, data);
        // Only the meeting's own worker, and only while it is live, changes what the record says.
        const { matchedCount } = await records.meetings.updateOne(
          { _id: meetingId, workerId, status: { $in: [...NON_TERMINAL] } },
          { $set: { warnings } },
        );
        if (matchedCount > 0) bus.publish(noticeMeeting(meetingId, 'warnings'), { meetingId, warnings });
        return {};
      },
      queue,
    ),
  ];

  let sweeping: Promise<number> | null = null;
  const runSweep = (): Promise<number> => {
    sweeping ??= sweep(leaseDeps)
      .catch((err: unknown) => {
        logger.error({ err }, 'lease sweep failed');
        return 0;
      })
      .finally(() => {
        sweeping = null;
      });
    return sweeping;
  };
  const timer = setInterval(() => void runSweep(), options.sweepMs);
  timer.unref();

  return {
    sweep: runSweep,
    async stop() {
      clearInterval(timer);
      await Promise.all(subs.map((s) => s.unsubscribe()));
      await sweeping;
      await counts.flush();
    },
  };
}
