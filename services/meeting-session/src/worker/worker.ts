/**
 * The worker half of meeting-session: it hosts meeting actors (each with its bot) up to
 * MAX_MEETINGS_PER_WORKER. It takes placements from the workers' queue group only while it has
 * room (a full worker leaves the group, so the next placement reaches another worker), and keeps
 * its lease with the registry alive. It holds no store: a worker can die with nothing lost but
 * its live bots, whose meetings the registry then ends as `worker_lost`, and the recorded audio
 * storage had not taken yet, which waits in its spool (RECORDING_SPOOL_DIR) and is sent by the
 * next process on the same disk.
 */
import { type MeetingWarning, type EventEnvelope, type Platform, queueGroup } from '@notetaker/contracts';
import { answer, call, type Bus, type Subscription } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { DriverFactory } from '../drivers/driver.js';
import type { MeetingSessionConfig } from '../config.js';
import { newWorkerId } from '../ids.js';
import { MeetingActor } from '../actor/meeting-actor.js';
import type { Coaching } from '../actor/coaching.js';
import { EventOutbox } from './event-outbox.js';
import { CaptionWarnings } from './caption-warnings.js';
import { Seats } from './seats.js';
import type { BotBrowser, BotsStatus } from './bot-browser.js';
import type { DeletionCost } from './pod-deletion-cost.js';
import type { SpeechDeps } from '../actor/meeting-actor.js';
import { protocol, type PlaceReply, type PlaceRequest } from '../protocol.js';
import { RecordingSpools, type RecordingMetrics } from '../recording/spools.js';
import type { Synthesizer } from '../speech/text-to-speech.js';

/** Taking an account asks the gateway twice (the list, the storage state): allow it time. */
const ACCOUNT_TIMEOUT_MS = 15_000;

export interface WorkerOptions {
  bus: Bus;
  /** The coaches of its meetings (and the model client they share). */
  coaching: Coaching;
  logger: Logger;
  config: MeetingSessionConfig;
  displayName: string;
  driverFactory: () => Promise<DriverFactory>;
  closeDriverFactory: () => Promise<void>;
  onPublished?: (event: EventEnvelope, emittedAt: number) => void;
  /** Where structural snapshots of unreadable caption areas go (null: none). */
  snapshotDir: string | null;
  /** A caption warning was raised (the episodes metric). */
  onCaptionEpisode?: (platform: Platform, warning: MeetingWarning) => void;
  /** The bots' browser, looked for again on each heartbeat and placement; absent: none needed (a scripted platform). */
  browser?: BotBrowser | null;
  /** On Kubernetes, the pod's deletion cost, kept equal to the live meetings (null: not in a cluster). */
  deletionCost?: DeletionCost | null;
  /** The speech engine its meetings share (null: none configured, captions only). */
  speech?: SpeechDeps | null;
  /** The speech output engine its meetings share (null: none configured, `speak` takes audio only). */
  textToSpeech?: Synthesizer | null;
  /** Where recorded audio waits for storage, and how much of it may. */
  recordingSpool: { dir: string; maxBytes: number; appendTimeoutMs: number };
  recordingMetrics?: RecordingMetrics;
}

export interface RunningWorker {
  readonly workerId: string;
  activeMeetings(): number;
  /** Meetings whose bot cannot read captions now, by platform and warning. */
  captionWarnings(): ReturnType<CaptionWarnings['counts']>;
  /** Bot seats: in use (a meeting whose browser is still open) and in all. */
  seats(): { inUse: number; total: number };
  /** Whether the bots have a browser, for /readyz. */
  bots(): BotsStatus;
  /** The recording spool: bytes held, meetings with audio storage has not taken. */
  recordingSpool(): { bytes: number; meetings: number };
  stop(): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { bus, logger, config } = options;
  const workerId = newWorkerId();
  const log = logger.child({ workerId });
  const actors = new Map<string, MeetingActor>();
  const captionWarnings = new CaptionWarnings({
    bus,
    logger: log,
    workerId,
    snapshotDir: options.snapshotDir,
    onEpisode: options.onCaptionEpisode,
  });
  const outbox = new EventOutbox({ bus, logger: log, workerId, onPublished: options.onPublished });
  const recordings = new RecordingSpools({
    ...options.recordingSpool,
    bus,
    logger: log,
    metrics: options.recordingMetrics,
    reportSaved: async (meetingId, recording) => {
      await call(bus, protocol.recordingSaved, { meetingId, workerId, recording });
    },
  });
  let placeSub: Subscription | null = null;
  let stopping = false;
  const seats = new Seats(config.maxMeetingsPerWorker, config.seatWaitMs, () => updateMembership());
  let exits: Array<() => void> = [];

  const heartbeat = async (leaving = false) => {
    try {
      const reply = await call(
        bus,
        protocol.heartbeat,
        {
          workerId,
          meetingIds: [...actors.keys()],
          active: seats.inUse,
          capacity: config.maxMeetingsPerWorker,
          leaving,
          browser: options.browser?.check() ?? true,
        },
        { timeoutMs: Math.max(1000, config.heartbeatMs) },
      );
      for (const meetingId of reply.release) actors.get(meetingId)?.abandon('the registry no longer counts it as ours');
    } catch (err) {
      log.warn({ err }, 'lease renewal failed');
    }
  };

  /** Resolves once no actor is left, or after `ms`. */
  const untilIdle = async (ms: number) => {
    if (actors.size === 0) return;
    const idle = new Promise<void>((resolve) => exits.push(resolve));
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([idle, new Promise((resolve) => (timeout = setTimeout(resolve, ms)))]);
    clearTimeout(timeout);
  };

  /** In the queue group only while there is room: NATS then routes placements elsewhere. */
  const updateMembership = () => {
    const room = !stopping && seats.hasRoom();
    if (room && !placeSub) {
      placeSub = answer(bus, protocol.place, place, { queue: queueGroup('meetings') });
    } else if (!room && placeSub) {
      void placeSub.unsubscribe();
      placeSub = null;
    }
  };

  const place = async (spec: PlaceRequest): Promise<PlaceReply> => {
    // No browser: the bot could not start here (the registry hears of it in the next heartbeat).
    if (options.browser?.check() === false) return { accepted: false };
    if (stopping || !(await seats.take(spec.meetingId))) return { accepted: false };
    if (stopping) {
      seats.free(spec.meetingId);
      return { accepted: false };
    }
    const meetingId = spec.meetingId;
    const actor = new MeetingActor(
      {
        bus,
        logger: log,
        config,
        displayName: options.displayName,
        driverFactory: options.driverFactory,
        outbox,
        captionWarnings,
        coaching: options.coaching,
        speech: options.speech ?? null,
        textToSpeech: options.textToSpeech ?? null,
        recordings,
        seat: { leaving: () => seats.willFree(meetingId), released: () => seats.free(meetingId) },
        nextAccount: (signedOut) =>
          call(bus, protocol.account, { meetingId, workerId, signedOut }, { timeoutMs: ACCOUNT_TIMEOUT_MS }),
        onExit: () => {
          seats.free(meetingId);
          captionWarnings.gone(meetingId);
          actors.delete(meetingId);
          options.deletionCost?.set(actors.size);
          if (actors.size === 0) for (const wake of exits.splice(0)) wake();
        },
      },
      spec,
    );
    actors.set(meetingId, actor);
    options.deletionCost?.set(actors.size);
    actor.start();
    log.info({ meetingId, seatsInUse: seats.inUse }, 'meeting placed');
    return { accepted: true, workerId };
  };

  // A restarted container finds its pod's annotation as the last one left it.
  options.deletionCost?.set(0);
  await heartbeat();
  // What a previous process on this disk spooled and storage never took goes now.
  const leftovers = recordings.resumeLeftovers();
  if (leftovers > 0) log.info({ meetings: leftovers }, 'sending recordings a previous process spooled');
  // A browser appearing (an install ending) or going is told to the registry now, not a beat later.
  options.browser?.onChange(() => {
    if (!stopping) void heartbeat();
  });
  updateMembership();
  const timer = setInterval(() => void heartbeat(), config.heartbeatMs);
  timer.unref();

  return {
    workerId,
    activeMeetings: () => actors.size,
    captionWarnings: () => captionWarnings.counts(),
    seats: () => ({ inUse: seats.inUse, total: seats.total }),
    bots: () => options.browser?.status() ?? { available: true },
    recordingSpool: () => recordings.stats(),
    async stop() {
      stopping = true;
      seats.refuseWaiting();
      updateMembership();
      // Out of the queue group, the lease still renewed: first the meetings may end by themselves
      // (a scale-in or an upgrade need not cut them; docs/deploy/kubernetes.md).
      if (actors.size > 0 && config.workerStopGraceMs > 0) {
        log.info({ meetings: actors.size, graceMs: config.workerStopGraceMs }, 'stopping: waiting for meetings to end');
        await untilIdle(config.workerStopGraceMs);
      }
      if (actors.size > 0) {
        log.info({ meetings: actors.size }, 'stopping: leaving the meetings still live');
        for (const actor of actors.values()) actor.shutdown();
        await untilIdle(config.workerDrainMs);
        // Whatever did not finish in time is released; the registry ends it as worker_lost.
        for (const actor of actors.values()) actor.abandon('the worker stopped');
      }
      // Audio storage has not taken yet is sent while the drain allows; the rest stays on disk for the next process.
      const spooled = recordings.stats();
      if (spooled.meetings > 0) log.info(spooled, 'stopping: sending the recordings still spooled');
      await recordings.drained(config.workerDrainMs);
      recordings.stop();
      clearInterval(timer);
      await heartbeat(true);
      exits = [];
      await options.deletionCost?.settled(2_000);
      await options.closeDriverFactory();
    },
  };
}
