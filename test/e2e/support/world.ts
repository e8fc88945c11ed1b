/**
 * The whole product as a customer meets it, for the end-to-end tests: the real stack (every service,
 * the real puppeteer drivers in real Chromium), the Google Meet / Teams simulator the browser is
 * pointed at, and a local callback receiver. One world is shared by the cases of a spec file; each
 * case uses meetings of its own (fresh meeting codes), so cases cannot see each other's events.
 *
 * Timings are shortened through the env exactly as an operator would: no periodic flush (the only
 * `document_saved` is the final one, so the event order is exact), a short lobby wait and a cap on
 * meeting length so nothing a failed case leaves behind can run long.
 */
import { randomBytes } from 'node:crypto';
import { findChrome } from '@notetaker/find-chrome';
import {
  createDriverFactory,
  driverOptionsFromEnv,
  type DriverFactory,
} from '../../../services/meeting-session/src/drivers/index.js';
import {
  startCallbackReceiver,
  type CallbackReceiver,
  type CallbackReceiverOptions,
  type ReceivedCallback,
} from '../../support/callback-receiver.js';
import { startTestStack, type TestStack } from '../../support/stack.js';
import {
  startSimulator,
  type MeetingOptions,
  type SimMeeting,
  type SimPlatform,
  type Simulator,
} from '../../simulators/index.js';
import { eventually } from '../../support/wait.js';
export { sleep } from '../../support/wait.js';

export interface Token {
  id: string;
  apiKey: string;
  signingSecret: string;
}

export interface StartedMeeting {
  meetingId: string;
  platform: SimPlatform;
  /** The simulated meeting behind it (controls and ground truth). */
  sim: SimMeeting;
  url: string;
  token: Token;
  /** The 201 body of the start. */
  started: Record<string, unknown>;
}

export interface World {
  sim: Simulator;
  rx: CallbackReceiver;
  t: TestStack;
  token: Token;
  /** A fresh native meeting id: a Meet code, a Teams thread id or (teamsLive) a teams.live.com number, a Zoom meeting id. */
  newNativeId(platform: SimPlatform, teamsLive?: boolean): string;
  /**
   * Creates the simulated meeting, then starts the bot over REST; expects 201. `request` holds more
   * fields of the start request (signIn, coach, language).
   */
  start(
    platform: SimPlatform,
    options?: {
      nativeId?: string;
      title?: string;
      token?: Token;
      meeting?: Partial<MeetingOptions>;
      request?: Record<string, unknown>;
    },
  ): Promise<StartedMeeting>;
  /** POST /meetings/start with a body as given, the raw response. */
  startRaw(json: Record<string, unknown>, token?: Token): Promise<Response>;
  stop(meetingId: string, token?: Token): Promise<Response>;
  get(path: string, token?: Token): Promise<Response>;
  /** The meeting's callbacks answered 2xx, first arrival per event id, in arrival order. */
  callbacks(meetingId: string): ReceivedCallback[];
  /** Waits for a callback of the meeting matching `test`. */
  waitForCallback(
    meetingId: string,
    test: (c: ReceivedCallback) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<ReceivedCallback>;
  /** Waits for the meeting_status callback with this status. */
  waitForStatus(meetingId: string, status: string, timeoutMs?: number): Promise<ReceivedCallback>;
  /** Waits for the stack's log line at warn level or above about the meeting that holds `fields`; returns it parsed. */
  waitForLogWarning(meetingId: string, fields: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Why the e2e suite cannot run here, or null when Chromium is installed. */
export function chromiumMissing(): string | null {
  return findChrome(process.env.CHROME_PATH) ? null : 'no Chromium (set CHROME_PATH or install chromium)';
}

export const E2E_ENV = {
  FLUSH_INTERVAL_MS: '600000',
  LOBBY_TIMEOUT_MS: '20000',
  ALONE_TIMEOUT_MS: '60000',
  MAX_MEETING_DURATION_MS: '90000',
  WORKER_DRAIN_MS: '5000',
  // A refused delivery (none expected) is tried again at once rather than after a second.
  WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
};

const letters = (n: number) => Array.from(randomBytes(n), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

export interface WorldOptions {
  /** The callback receiver's options (a benchmark's hook on each callback). */
  receiver?: CallbackReceiverOptions;
  /**
   * Wraps the real driver factory (built from the same env) before the stack gets it, to observe
   * the drivers; without it the stack builds its own default factory from the env.
   */
  wrapDrivers?: (real: DriverFactory) => DriverFactory;
}

/** The stack's env is E2E_ENV, the simulator's Chromium flags, then `env`. */
export async function startWorld(env: Record<string, string> = {}, options: WorldOptions = {}): Promise<World> {
  const sim = await startSimulator();
  const rx = await startCallbackReceiver(options.receiver);
  const stackEnv = { ...E2E_ENV, BOT_BROWSER_ARGS: JSON.stringify(sim.hostResolverRules()), ...env };
  let t: TestStack;
  try {
    const driverFactory = options.wrapDrivers?.(createDriverFactory(driverOptionsFromEnv(stackEnv)));
    t = await startTestStack(stackEnv, { driverFactory });
  } catch (err) {
    await rx.close();
    await sim.close();
    throw err;
  }
  const token = (await t.createToken()) as Token;

  const api = (path: string, init: { method?: string; json?: unknown; token?: Token }) =>
    t.api(path, { method: init.method, json: init.json, apiKey: (init.token ?? token).apiKey });

  const callbacks = (meetingId: string) => rx.events().filter((c) => c.meetingId === meetingId);

  const waitForCallback: World['waitForCallback'] = async (meetingId, test, what, timeoutMs = 30_000) => {
    try {
      await rx.waitFor(() => callbacks(meetingId).some(test), timeoutMs, what);
    } catch (err) {
      const seen = callbacks(meetingId).map(describeCallback).join(', ');
      throw new Error(`${(err as Error).message}; ${meetingId} got: ${seen || 'nothing'}`);
    }
    return callbacks(meetingId).find(test)!;
  };

  const world: World = {
    sim,
    rx,
    t,
    token,
    newNativeId(platform, teamsLive = false) {
      if (platform === 'google_meet') return `${letters(3)}-${letters(4)}-${letters(3)}`;
      // An 11-digit Zoom meeting id.
      if (platform === 'zoom') return String(80_000_000_000 + randomBytes(4).readUInt32BE());
      if (teamsLive) return String(9_300_000_000_000 + (randomBytes(4).readUInt32BE() % 99_999_999));
      return `19:meeting_${randomBytes(12).toString('base64url')}@thread.v2`;
    },
    async start(platform, options = {}) {
      const nativeId = options.nativeId ?? world.newNativeId(platform);
      const simMeeting = sim.meeting(nativeId, options.meeting);
      const url = sim.url(platform, nativeId);
      const owner = options.token ?? token;
      const res = await world.startRaw(
        { url, callbackUrl: `${rx.url}/hooks/notetaker`, title: options.title ?? 'E2E check', ...options.request },
        owner,
      );
      const started = (await res.json()) as Record<string, unknown>;
      if (res.status !== 201) throw new Error(`start answered ${res.status} ${JSON.stringify(started)}`);
      return { meetingId: String(started.meetingId), platform, sim: simMeeting, url, token: owner, started };
    },
    startRaw: (json, owner) => api('/meetings/start', { method: 'POST', json, token: owner }),
    stop: (meetingId, owner) => api('/meetings/stop', { method: 'POST', json: { meetingId }, token: owner }),
    get: (path, owner) => api(path, { token: owner }),
    callbacks,
    waitForCallback,
    waitForStatus: (meetingId, status, timeoutMs) =>
      waitForCallback(
        meetingId,
        (c) => c.eventType === 'meeting_status' && statusOf(c) === status,
        `status ${status}`,
        timeoutMs,
      ),
    waitForLogWarning: (meetingId, fields) =>
      eventually(
        () => t.warnings().find((line) => line.meetingId === meetingId && holds(line, fields)),
        `the log line ${JSON.stringify(fields)} of ${meetingId}`,
      ),
    async close() {
      await t.stop();
      await rx.close();
      await sim.close();
    },
  };
  return world;
}

/** Every field of `fields` has its value in `line`. */
const holds = (line: Record<string, unknown>, fields: Record<string, unknown>) =>
  Object.entries(fields).every(([key, value]) => line[key] === value);

export function payloadOf(c: ReceivedCallback): Record<string, unknown> {
  return ((c.json as { payload?: Record<string, unknown> } | undefined)?.payload ?? {}) as Record<string, unknown>;
}

export function statusOf(c: ReceivedCallback): string | undefined {
  return payloadOf(c).status as string | undefined;
}

/** `meeting_status:live`, `meeting_status:ended(removed)`, `caption_partial`, ... for messages. */
export function describeCallback(c: ReceivedCallback): string {
  if (c.eventType !== 'meeting_status') return String(c.eventType);
  const { status, reason } = payloadOf(c);
  return `meeting_status:${String(status)}${reason ? `(${String(reason)})` : ''}`;
}

/** The two platforms every whole-stack case runs on. */
export const PLATFORMS: Array<{ platform: SimPlatform; label: string }> = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Microsoft Teams' },
];

export interface UseWorldOptions {
  /** Without Chromium the cases fail with the reason, rather than being skipped. */
  chromiumRequired?: boolean;
}

/**
 * One world shared by the cases of a describe block: started before them (skipped with the reason
 * printed when there is no Chromium, unless it is required), closed after them. Call it inside `describe`.
 */
export function useWorld(env: Record<string, string> = {}, options: UseWorldOptions = {}): () => World {
  let world: World | undefined;
  before(async function () {
    const missing = chromiumMissing();
    if (missing && options.chromiumRequired) throw new Error(missing);
    if (missing) {
      console.log(`    skipped: ${missing}`);
      this.skip();
    }
    world = await startWorld(env);
  });
  after(async () => {
    await world?.close();
  });
  return () => world!;
}
