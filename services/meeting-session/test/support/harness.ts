/**
 * meeting-session with its real neighbours, for contract tests over the bus: transcript-store
 * and webhook-emitter (real services), a real embedded store per service in a temporary folder,
 * a private in-memory bus (or NATS), and the scripted meeting platform in place of Meet/Teams.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type client from 'prom-client';
import { connectBus, MemoryBroker, MemoryBus, type Bus } from '@notetaker/bus';
import { evtMeeting, routes, type EventEnvelope } from '@notetaker/contracts';
import {
  createMetricsRegistry,
  loadBaseConfig,
  silentLogger,
  type RunningService,
  type ServiceDefinition,
} from '@notetaker/kit';
import { openStore, type Store } from '@notetaker/store';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { webhookEmitterService } from '@notetaker/webhook-emitter';
import { meetingSessionService, type MeetingSessionOptions, type RunningMeetingSession } from '../../src/service.js';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
export { eventually } from '../../../../test/support/wait.js';

export const TOKEN_CALLER = { kind: 'token' as const, tokenId: 'tok_alpha', capabilities: ['knowledge:write'] };
export const OTHER_CALLER = { kind: 'token' as const, tokenId: 'tok_beta', capabilities: ['knowledge:write'] };
export const READ_ONLY_CALLER = { kind: 'token' as const, tokenId: 'tok_gamma', capabilities: [] as string[] };
export const UI_CALLER = { kind: 'ui' as const, accountId: 'acct_1' };

/** Short timers so auto-leave and leases can be watched in a test. */
export const FAST_ENV = {
  FLUSH_INTERVAL_MS: '200',
  ALONE_TIMEOUT_MS: '60000',
  LOBBY_TIMEOUT_MS: '60000',
  MAX_MEETING_DURATION_MS: '3600000',
  WORKER_LEASE_MS: '1500',
  MAX_MEETINGS_PER_WORKER: '100',
};

interface Started {
  running: RunningService;
  store: Store;
  metrics: client.Registry;
}

export interface Harness {
  bus: Bus;
  dataDir: string;
  driver: ScriptedDriverFactory;
  session: RunningMeetingSession;
  /** meeting-session's /metrics text. */
  metrics(): Promise<string>;
  /** Starts a meeting over the bus (defaults: a fresh Meet URL, no callback, saving). */
  start(
    overrides?: Record<string, unknown>,
  ): Promise<{ meetingId: string; documentPath: string | null; platform: string }>;
  /** A raw request of a public verb: `data` is sent as given (tests send bad requests on purpose). */
  request<T = unknown>(verb: keyof typeof routes.meetings, data: unknown): Promise<T>;
  /** Every event published for a meeting, as a subscriber receives them. */
  events(meetingId: string): EventEnvelope[];
  waitForEvent(meetingId: string, match: (e: EventEnvelope) => boolean, timeoutMs?: number): Promise<EventEnvelope>;
  /** Stops meeting-session only (as a crash or restart would leave the others running). */
  stopSession(): Promise<void>;
  /** Starts meeting-session again on the same data. */
  restartSession(env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/** A fresh, valid Meet URL: every test meeting is its own. */
export function freshMeetUrl(): string {
  const letters = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
  return `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
}

export async function startHarness(
  env: Record<string, string> = {},
  options: {
    driver?: ScriptedDriverFactory;
    natsUrl?: string;
    dataDir?: string;
    browserDrivers?: boolean;
    /** More of meeting-session's options (e.g. browserCheck). */
    session?: MeetingSessionOptions;
  } = {},
): Promise<Harness> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'meeting-session-test-'));
  const baseEnv = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // A test never runs apt-get.
    BOT_INSTALL_BROWSER: 'false',
    ...FAST_ENV,
    ...env,
  } as Record<string, string>;
  if (options.natsUrl) baseEnv.NATS_URL = options.natsUrl;
  let config = loadBaseConfig(baseEnv);
  const bus: Bus = options.natsUrl
    ? await connectBus({ natsUrl: options.natsUrl, name: 'harness' })
    : new MemoryBus({ broker: new MemoryBroker() });
  const driver = options.driver ?? scriptedDriverFactory();
  const logger = silentLogger();
  const others: Started[] = [];
  const launch = async (definition: ServiceDefinition): Promise<Started> => {
    const store = await openStore({ service: definition.name, dataDir });
    const metrics = createMetricsRegistry(definition.name);
    const running = await definition.start({ bus, store, config, logger, metrics });
    return { running, store, metrics };
  };
  for (const definition of [transcriptStoreService(), webhookEmitterService()]) others.push(await launch(definition));
  let session: Started | null = await launch(
    meetingSessionService({ driverFactory: options.browserDrivers ? undefined : driver, ...options.session }),
  );

  const received = new Map<string, EventEnvelope[]>();
  const waiters = new Set<() => void>();
  const sub = bus.subscribe(evtMeeting('*', '*'), (data) => {
    const event = data as EventEnvelope;
    const list = received.get(event.meetingId) ?? [];
    list.push(event);
    received.set(event.meetingId, list);
    for (const wake of [...waiters]) wake();
  });
  await bus.flush();

  const harness: Harness = {
    bus,
    dataDir,
    driver,
    get session() {
      return session!.running as RunningMeetingSession;
    },
    metrics: () => session!.metrics.metrics(),
    async start(overrides = {}) {
      return bus.request(
        routes.meetings.start.subject,
        {
          caller: TOKEN_CALLER,
          url: freshMeetUrl(),
          title: 'Weekly sync',
          callbackUrl: null,
          project: 'api',
          saveTranscript: true,
          ...overrides,
        },
        { timeoutMs: 20_000 },
      );
    },
    request: (verb, data) => bus.request(routes.meetings[verb].subject, data),
    events: (meetingId) => received.get(meetingId) ?? [],
    waitForEvent(meetingId, match, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = (received.get(meetingId) ?? []).find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const seen = (received.get(meetingId) ?? []).map(
            (e) => `${e.sequence}:${e.type}:${JSON.stringify(e.payload)}`,
          );
          reject(new Error(`no matching event for ${meetingId} in ${timeoutMs} ms; saw ${seen.join(' | ')}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async stopSession() {
      if (!session) return;
      await session.running.stop();
      await session.store.close();
      session = null;
    },
    async restartSession(extraEnv = {}) {
      if (session) await harness.stopSession();
      config = loadBaseConfig({ ...baseEnv, ...extraEnv });
      session = await launch(
        meetingSessionService({ driverFactory: options.browserDrivers ? undefined : driver, ...options.session }),
      );
    },
    async stop() {
      await sub.unsubscribe();
      await harness.stopSession();
      for (const s of others.reverse()) {
        await s.running.stop();
        await s.store.close();
      }
      await bus.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** The `meeting_status` payloads of a meeting, in order. */
export const statuses = (h: Harness, id: string) =>
  h
    .events(id)
    .filter((e) => e.type === 'meeting_status')
    .map((e) => e.payload);

export { rejection } from '../../../../test/support/rejection.js';
