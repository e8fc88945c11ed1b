/**
 * meeting-session with its real neighbours, for contract tests over the bus: transcript-store
 * and webhook-emitter (real services), a real embedded store per service in a temporary folder,
 * a private in-memory bus (or NATS), and the scripted meeting platform in place of Meet/Teams.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, MemoryBroker, MemoryBus, type Bus } from '@notetaker/bus';
import { evtMeeting, routes, type EventEnvelope } from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/config';
import type { ServiceDefinition } from '@notetaker/service-runtime';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { webhookEmitterService } from '@notetaker/webhook-emitter';
import { meetingSessionService, type MeetingSessionOptions, type RunningMeetingSession } from '../../src/service.js';
import {
  scriptedDriverFactory,
  type ScriptedDriverFactory,
  type ScriptedMeeting,
} from '../../../../test/support/scripted-driver.js';
import { startInProcess, type InProcessService } from './in-process.js';
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
  /** Starts a meeting as `start` does and waits until it is live; `bot` is its scripted platform side. */
  startLive(
    overrides?: Record<string, unknown>,
  ): Promise<{ meetingId: string; documentPath: string | null; platform: string; bot: ScriptedMeeting }>;
  /** A raw request of a public verb: `data` is sent as given (tests send bad requests on purpose). */
  request<T = unknown>(verb: keyof typeof routes.meetings, data: unknown): Promise<T>;
  /** Every event published for a meeting, as a subscriber receives them. */
  events(meetingId: string): EventEnvelope[];
  waitForEvent(meetingId: string, match: (e: EventEnvelope) => boolean, timeoutMs?: number): Promise<EventEnvelope>;
  /** Stops meeting-session only (as a crash or restart would leave the others running). */
  stopSession(): Promise<void>;
  /** Starts meeting-session again on the same data. */
  restartSession(env?: Record<string, string>): Promise<void>;
  /** Stops transcript-store (it is gone from the bus), and starts it again on the same data. */
  stopStore(): Promise<void>;
  startStore(): Promise<void>;
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
  const others: InProcessService[] = [];
  const launch = (definition: ServiceDefinition) => startInProcess(definition, bus, config);
  for (const definition of [transcriptStoreService(), webhookEmitterService()]) others.push(await launch(definition));
  let store: InProcessService | null = others[0];
  let session: InProcessService | null = await launch(
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
    async startLive(overrides = {}) {
      const started = await harness.start(overrides);
      await harness.waitForEvent(started.meetingId, (e) => e.payload.status === 'live');
      return { ...started, bot: await driver.meeting(started.meetingId) };
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
      await session.stop();
      session = null;
    },
    async restartSession(extraEnv = {}) {
      if (session) await harness.stopSession();
      config = loadBaseConfig({ ...baseEnv, ...extraEnv });
      session = await launch(
        meetingSessionService({ driverFactory: options.browserDrivers ? undefined : driver, ...options.session }),
      );
    },
    async stopStore() {
      await store?.stop();
      store = null;
    },
    async startStore() {
      store ??= await launch(transcriptStoreService());
    },
    async stop() {
      await sub.unsubscribe();
      await harness.stopSession();
      if (store) others[0] = store;
      else others.shift();
      for (const s of others.reverse()) await s.stop();
      await bus.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * A harness started before the suite's tests (in the `describe` body where this is called) and
 * stopped after them. The handle returned forwards to it, so tests use it as they would a Harness.
 */
export function harnessForSuite(env?: Record<string, string>, options?: Parameters<typeof startHarness>[1]): Harness {
  let h: Harness | undefined;
  before(async () => {
    h = await startHarness(env, options);
  });
  after(() => h?.stop());
  return lateHarness(() => h);
}

/** A Harness that forwards to the one `current()` returns when it is used: one a hook starts later. */
export function lateHarness(current: () => Harness | undefined): Harness {
  return new Proxy({} as Harness, {
    get(_, key) {
      const h = current();
      if (!h) throw new Error(`harness.${String(key)} used before the suite's before hook started the harness`);
      return Reflect.get(h, key);
    },
  });
}

/** A live meeting on a fresh URL where Ada said `text`: its segment_finalized event is in. */
export async function liveAfterSaying(h: Harness, text: string) {
  const url = freshMeetUrl();
  const { meetingId, bot } = await h.startLive({ url });
  bot.segment({ speaker: 'Ada', text });
  await h.waitForEvent(meetingId, (e) => e.type === 'segment_finalized');
  return { url, meetingId, bot };
}

/** The `meeting_status` payloads of a meeting, in order. */
export const statuses = (h: Harness, id: string) =>
  h
    .events(id)
    .filter((e) => e.type === 'meeting_status')
    .map((e) => e.payload);

export { rejection } from '../../../../test/support/rejection.js';
