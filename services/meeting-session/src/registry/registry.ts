/**
 * The registry half of meeting-session: it owns the store (records, claims, event log, leases)
 * and serves the public verbs in the service's queue group, so any number of registries can run
 * against one database. It never runs a browser.
 */
import { errors, noticeMeeting, queueGroup, routes, ServiceError, type RecordingMode } from '@notetaker/contracts';
import { answer, type Bus, type Subscription } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { Store } from '@notetaker/store';
import { protocol, subjects } from '../protocol.js';
import { EventLog } from './event-log.js';
import { endLostMeeting, FULL_SWEEP_MS, renewLease, sweep, type LeaseDeps } from './leases.js';
import { recordEvents } from './record-events.js';
import { DeferredCounts } from './deferred-counts.js';
import { isStoppable, NON_TERMINAL, Records, toRecord, toSummary } from './records.js';
import { launchBot } from './launch-bot.js';
import { recordingSaved } from './recording-saved.js';
import { AccountPicker, nextAccount } from './account-picker.js';
import { sendChat } from './chat.js';
import { speak } from './speak.js';

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
  /** A start's `recording` when it names none (RECORDING_DEFAULT). */
  recordingDefault?: RecordingMode;
  /** A speech engine is configured (STT_BASE_URL). */
  speechEngine?: boolean;
  /** A speech output engine is configured (TTS_BASE_URL): `speak` takes text. */
  speechOutput?: boolean;
  /** The worker in this same process holds a meeting's audio in its spool (LeaseDeps.spooledHere). */
  spooledHere?: (meetingId: string) => boolean;
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
  const accounts = new AccountPicker(options.store, records, bus, logger);
  await accounts.init();
  const leaseDeps: LeaseDeps = {
    bus,
    records,
    log,
    logger,
    leaseMs: options.leaseMs,
    retentionMs: options.retentionMs,
    spooledHere: options.spooledHere,
  };

  // Meetings left behind by a previous process of an embedded install end now, not a lease later.
  if (options.alone) await sweep(leaseDeps, { allOthersGone: true });

  const queue = { queue: queueGroup('meetings') };
  const { meetings } = routes;
  const subs: Subscription[] = [
    answer(
      bus,
      meetings.start,
      (request) =>
        launchBot(
          {
            bus,
            records,
            accounts,
            logger,
            onRefusedForCapacity: options.onRefusedForCapacity,
            recordingDefault: options.recordingDefault ?? 'none',
            speechEngine: options.speechEngine ?? false,
          },
          request,
        ),
      queue,
    ),
    answer(
      bus,
      meetings.stop,
      async ({ caller, meetingId }) => {
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
    answer(
      bus,
      meetings.status,
      async ({ caller }) => ({ meetings: (await records.liveOf(caller)).map(toSummary) }),
      queue,
    ),
    answer(bus, meetings.get, async ({ caller, meetingId }) => toRecord(await records.owned(caller, meetingId)), queue),
    answer(
      bus,
      meetings.events,
      async (request) => ({ events: await log.after(request.meetingId, request.afterSequence, request.limit) }),
      queue,
    ),
    answer(bus, protocol.record, (request) => recordEvents({ records, log, counts }, request), queue),
    answer(bus, protocol.heartbeat, (beat) => renewLease(leaseDeps, beat), queue),
    answer(bus, protocol.account, (request) => nextAccount({ records, accounts, logger }, request), queue),
    answer(bus, protocol.recordingSaved, (request) => recordingSaved({ bus, records, log, logger }, request), queue),
    answer(bus, meetings.accountUsage, async () => ({ inUse: await accounts.usage() }), queue),
    answer(bus, meetings.chat, (request) => sendChat({ bus, records }, request), queue),
    answer(
      bus,
      meetings.speak,
      (request) => speak({ bus, records, speechOutput: options.speechOutput ?? false }, request),
      queue,
    ),
    answer(
      bus,
      protocol.warnings,
      async ({ meetingId, workerId, warnings }) => {
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
  // The first of the timer's sweeps reads every live meeting, then one a minute (FULL_SWEEP_MS).
  let lastFullSweep = 0;
  const runSweep = (full = true): Promise<number> => {
    if (sweeping) return sweeping;
    if (full) lastFullSweep = Date.now();
    sweeping = sweep(leaseDeps, { full })
      .catch((err: unknown) => {
        logger.error({ err }, 'lease sweep failed');
        return 0;
      })
      .finally(() => {
        sweeping = null;
      });
    return sweeping;
  };
  const timer = setInterval(() => void runSweep(Date.now() - lastFullSweep >= FULL_SWEEP_MS), options.sweepMs);
  timer.unref();

  return {
    sweep: () => runSweep(),
    async stop() {
      clearInterval(timer);
      await Promise.all(subs.map((s) => s.unsubscribe()));
      await sweeping;
      await counts.flush();
    },
  };
}
