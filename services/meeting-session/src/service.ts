/**
 * The meeting-session service: a registry (records, identity claims, event log, worker leases;
 * serves svc.meetings.*) and a worker (meeting actors and their bots). MEETING_SESSION_ROLE picks
 * one or both; the default runs both, which is what the embedded stack and a small deployment want.
 */
import path from 'node:path';
import type { EventEnvelope } from '@notetaker/contracts';
import type { RunningService, ServiceDefinition } from '@notetaker/service-runtime';
import { loadMeetingSessionConfig, type MeetingSessionConfig } from './config.js';
import type { DriverFactory } from './drivers/driver.js';
import { priorityNotice } from './drivers/thread-priority.js';
import { lazyDriverFactory } from './driver-factory.js';
import { createMeetingMetrics } from './metrics.js';
import { Coaching } from './actor/coaching.js';
import { startRegistry, type RunningRegistry } from './registry/registry.js';
import { startWorker, type RunningWorker } from './worker/worker.js';
import { aptInstaller, BotBrowser, type BrowserInstaller } from './worker/bot-browser.js';
import { podDeletionCost } from './worker/pod-deletion-cost.js';
import { EngineProbe } from './transcription/engine-probe.js';
import { SpeechEngine } from './transcription/speech-engine.js';
import { spoolHolds } from './recording/spool.js';
import { TextToSpeech } from './speech/text-to-speech.js';

export interface MeetingSessionOptions {
  /** The meeting platform: default the browser drivers of src/drivers. */
  driverFactory?: DriverFactory;
  /** Called as each event is published, with its emit time (performance.now()); benchmarks. */
  onPublished?: (event: EventEnvelope, emittedAt: number) => void;
  /**
   * The check for the bots' browser, which runs whenever the browser drivers do; given, it runs
   * with a scripted platform too and looks where it says (tests).
   */
  browserCheck?: { candidates?: string[]; installer?: BrowserInstaller | null };
}

export interface RunningMeetingSession extends RunningService {
  registry: RunningRegistry | null;
  worker: RunningWorker | null;
}

export function meetingSessionService(options: MeetingSessionOptions = {}): ServiceDefinition<RunningMeetingSession> {
  return {
    name: 'meeting-session',
    async start(ctx): Promise<RunningMeetingSession> {
      const config = loadMeetingSessionConfig(ctx.config.env);
      let worker: RunningWorker | null = null;
      const metrics = createMeetingMetrics(ctx.metrics, {
        activeMeetings: () => worker?.activeMeetings() ?? 0,
        seats: () => worker?.seats() ?? { inUse: 0, total: 0 },
        captionWarnings: () => worker?.captionWarnings() ?? [],
        recordingSpool: () => worker?.recordingSpool() ?? { bytes: 0, meetings: 0 },
      });
      const recordingSpool = {
        dir: config.recordingSpool.dir ?? path.join(ctx.config.dataDir, 'recording-spool'),
        maxBytes: config.recordingSpool.maxBytes,
        appendTimeoutMs: config.recordingSpool.appendTimeoutMs,
      };
      const registry =
        config.role === 'worker'
          ? null
          : await startRegistry({
              bus: ctx.bus,
              store: ctx.store,
              logger: ctx.logger,
              leaseMs: config.workerLeaseMs,
              sweepMs: config.heartbeatMs,
              retentionMs: config.eventLogRetentionMs,
              // Without NATS nothing outside this process can reach the registry.
              alone: !ctx.config.natsUrl,
              onRefusedForCapacity: metrics.onRefusedForCapacity,
              recordingDefault: config.recordingDefault,
              speechEngine: config.speech !== null,
              speechOutput: config.textToSpeech !== null,
              // One process with its worker: what that worker spooled, it sends and finishes itself.
              spooledHere: config.role === 'all' ? (meetingId) => spoolHolds(recordingSpool.dir, meetingId) : undefined,
            });
      const drivers = lazyDriverFactory(options.driverFactory, ctx.config.env, config);
      // A given check (tests) installs only with the installer it gives: never apt-get by accident.
      const check = options.browserCheck ?? (options.driverFactory ? null : { installer: defaultInstaller(config) });
      const browser =
        config.role === 'registry' || !check
          ? null
          : new BotBrowser({
              chromePath: config.chromePath,
              candidates: check.candidates,
              installer: check.installer ?? null,
              logger: ctx.logger,
            });
      const onPublished = (event: EventEnvelope, emittedAt: number) => {
        metrics.onPublished(event, emittedAt);
        options.onPublished?.(event, emittedAt);
      };
      const probe = new EngineProbe(config.role === 'registry' ? null : config.speech, ctx.logger);
      const speech = config.speech && {
        engine: metrics.speech.metered(new SpeechEngine(config.speech)),
        budgetSeconds: config.speech.maxAudioSeconds,
        lag: metrics.speech.lag,
        switched: metrics.speech.switched,
        unknownSpeaker: metrics.speech.unknownSpeaker,
      };
      try {
        worker =
          config.role === 'registry'
            ? null
            : await startWorker({
                bus: ctx.bus,
                logger: ctx.logger,
                config,
                displayName: config.displayName,
                driverFactory: () => drivers.get(),
                closeDriverFactory: () => drivers.close(),
                onPublished,
                snapshotDir: path.join(ctx.config.dataDir, 'caption-snapshots'),
                onCaptionEpisode: metrics.onCaptionEpisode,
                coaching: new Coaching({ config: config.coach, logger: ctx.logger, metrics: metrics.coach }),
                browser,
                deletionCost: podDeletionCost(ctx.config.env, ctx.logger),
                speech,
                textToSpeech: config.textToSpeech && new TextToSpeech(config.textToSpeech),
                recordingSpool,
                recordingMetrics: metrics.recording,
              });
      } catch (err) {
        await registry?.stop();
        throw err;
      }
      ctx.logger.info({ role: config.role, workerId: worker?.workerId }, 'meeting-session started');
      browser?.start();
      const priority = browser && priorityNotice();
      if (priority) ctx.logger[priority.level](priority.message);
      probe.start();
      return {
        registry,
        worker,
        readiness: () =>
          worker
            ? { bots: worker.bots(), audioTranscription: probe.state, speechOutput: config.textToSpeech ? 'on' : 'off' }
            : {},
        async stop() {
          probe.stop();
          // The worker first: its actors still need the registry to store their last events.
          await worker?.stop();
          await registry?.stop();
        },
      };
    },
  };
}

/** apt-get's chromium, unless BOT_INSTALL_BROWSER=false or CHROME_PATH names the browser to use. */
function defaultInstaller(config: MeetingSessionConfig): BrowserInstaller | null {
  return config.installBrowser && !config.chromePath ? aptInstaller() : null;
}
