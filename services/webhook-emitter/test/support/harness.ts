/**
 * The emitter as it runs in the stack, for tests: the real webhook-emitter service and the real
 * gateway (which owns tokens and answers svc.identity.signing-secret) on one in-process bus, each
 * with its own embedded store in a temporary DATA_DIR. Events are published on the bus exactly as
 * meeting-session publishes them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, MemoryBroker, MemoryBus, type Bus } from '@notetaker/bus';
import {
  evtMeeting,
  routes,
  type Caller,
  type EventEnvelope,
  type EventType,
  type WebhookDeliveriesReply,
} from '@notetaker/contracts';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService } from '@notetaker/service-runtime';
import { openStore, type Store } from '@notetaker/store';
import type client from 'prom-client';
import { webhookEmitterService, type WebhookEmitterOptions } from '../../src/index.js';
import { eventually } from '../../../../test/support/wait.js';
import { startSigningGateway } from './signing-gateway.js';

/** Fast retries so a test sees several attempts in well under a second. */
export const FAST_RETRIES = {
  WEBHOOK_RETRY_DELAYS_MS: '40,40,40,40,40',
  WEBHOOK_RETRY_JITTER: '0',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_GAP_GRACE_MS: '50',
  LOG_LEVEL: 'silent',
};

export interface Token {
  id: string;
  signingSecret: string;
  caller: Caller;
}

export interface Harness {
  bus: Bus;
  dataDir: string;
  metrics: client.Registry;
  createToken(): Promise<Token>;
  register(meetingId: string, callbackUrl: string, tokenId: string | null): Promise<{ state: string }>;
  publish(envelope: EventEnvelope): void;
  deliveries(
    caller: Caller,
    meetingId: string,
    page?: { afterSequence?: number; limit?: number },
  ): Promise<DeliveryLog>;
  /** Stops the emitter and starts it again on the same data (a clean restart). */
  restartEmitter(env?: Record<string, string>): Promise<void>;
  stopEmitter(): Promise<void>;
  startEmitter(env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/** What the delivery log answers (the contract's reply type). */
export type DeliveryLog = WebhookDeliveriesReply;

let counter = 0;
export function newMeetingId(): string {
  const suffix = `${Math.random().toString(36).slice(2, 10)}${(counter++).toString(36).padStart(4, '0')}`;
  return `meeting_${Date.now()}_${suffix.replace(/[^A-Za-z0-9]/g, 'x')}`;
}

export function envelope(
  meetingId: string,
  sequence: number,
  type: EventType = 'segment_finalized',
  payload: Record<string, unknown> = { speaker: 'Ada', text: `line ${sequence}`, timestamp: new Date().toISOString() },
): EventEnvelope {
  return { type, meetingId, sequence, timestamp: new Date().toISOString(), payload };
}

export async function startHarness(
  env: Record<string, string> = {},
  options: WebhookEmitterOptions = {},
): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-test-'));
  const bus = new MemoryBus({ broker: new MemoryBroker() });
  const config = (extra: Record<string, string>) =>
    loadBaseConfig({ DATA_DIR: dataDir, PORT: '0', ...FAST_RETRIES, ...env, ...extra });
  const logger = silentLogger();

  const gateway = await startSigningGateway(bus, dataDir, { ...FAST_RETRIES, ...env });

  let emitterStore: Store;
  let emitter: RunningService;
  let metrics: client.Registry;
  const startEmitter = async (extra: Record<string, string>) => {
    emitterStore = await openStore({ service: 'webhook-emitter', dataDir });
    metrics = createMetricsRegistry('webhook-emitter');
    emitter = await webhookEmitterService(options).start({
      bus,
      store: emitterStore,
      config: config(extra),
      logger,
      metrics,
    });
  };
  const stopEmitter = async () => {
    await emitter.stop();
    await emitterStore.close();
  };
  await startEmitter({});

  return {
    bus,
    dataDir,
    get metrics() {
      return metrics;
    },
    async createToken() {
      const created = await gateway.createToken('test');
      return { ...created, caller: { kind: 'token', tokenId: created.id, capabilities: [] } };
    },
    register: (meetingId, callbackUrl, tokenId) =>
      call(bus, routes.webhooks.register, { meetingId, callbackUrl, tokenId }),
    publish: (e) => bus.publish(evtMeeting(e.meetingId, e.type), e),
    deliveries: (caller, meetingId, page = {}) => call(bus, routes.webhooks.deliveries, { caller, meetingId, ...page }),
    async restartEmitter(extra = {}) {
      await stopEmitter();
      await startEmitter(extra);
    },
    stopEmitter,
    startEmitter: (extra = {}) => startEmitter(extra),
    async stop() {
      await stopEmitter();
      await gateway.stop();
      await bus.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The harness with a token of its gateway, for one mocha suite. */
export interface SuiteHarness extends Harness {
  token: Token;
}

/**
 * The harness and one token for one mocha suite: started by a before() hook registered here, so it
 * runs ahead of the hooks the suite registers after calling this, and stopped by after(). The
 * object returned is filled in once that hook has run: read it inside hooks and tests.
 */
export function harnessPerSuite(env: Record<string, string> = {}): SuiteHarness {
  const suite = {} as SuiteHarness;
  before(async () => {
    const harness = await startHarness(env);
    // Descriptors, not values: `metrics` is a getter that follows the emitter across restarts.
    Object.defineProperties(suite, Object.getOwnPropertyDescriptors(harness));
    suite.token = await harness.createToken();
  });
  after(() => suite.stop?.());
  return suite;
}

/** Polls the delivery log until `done` holds (the log is what a user sees). */
export async function waitForLog(
  h: Harness,
  caller: Caller,
  meetingId: string,
  done: (log: DeliveryLog) => boolean,
  timeoutMs = 10_000,
): Promise<DeliveryLog> {
  return eventually(
    async () => {
      const log = await h.deliveries(caller, meetingId);
      // The deliveries as last read are the failure's message.
      if (!done(log)) throw new Error(`deliveries: ${JSON.stringify(log.deliveries)}`);
      return log;
    },
    'the delivery log condition',
    timeoutMs,
  );
}
