/**
 * A recorded meeting's stack with storage that fails on demand, for the recording-faults spec and
 * bench: meeting-session, transcript-store on a local S3 server behind the fault proxy (or on
 * files), all on a real nats-server; the scripted platform, each bot's listener kept so that a
 * caller hands over its page's audio (a real Opus tone, support/opus-tone.ts).
 */
import type { RecordingInfo } from '@notetaker/contracts';
import type { DriverListener } from '../../src/drivers/driver.js';
import { sleep } from '../../../../test/support/wait.js';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { recordingsS3Env, startS3Endpoint } from '../../../transcript-store/test/support/s3-server.js';
import { startFaultProxy, type FaultProxy } from '../../../../test/support/fault-proxy.js';
import { startHarness, TOKEN_CALLER, type Harness } from './harness.js';
import { toneSource } from './opus-tone.js';
import { RecordingRequests } from './recordings.js';

/** The scripted platform, keeping each bot's listener so that the test can hand over its page's audio. */
export function listeningDriver(): { driver: ScriptedDriverFactory; listener(meetingId: string): DriverListener } {
  const scripted = scriptedDriverFactory();
  const listeners = new Map<string, DriverListener>();
  const driver: ScriptedDriverFactory = {
    ...scripted,
    create(target) {
      const inner = scripted.create(target);
      return {
        ...inner,
        start(listener) {
          listeners.set(target.meetingId, listener);
          return inner.start(listener);
        },
      };
    },
  };
  return { driver, listener: (meetingId) => listeners.get(meetingId)! };
}

export interface Stack {
  h: Harness;
  proxy: FaultProxy;
  requests: RecordingRequests;
  listener(meetingId: string): DriverListener;
  stop(): Promise<void>;
}

/** The stack on NATS at `natsUrl` with `env`, its recordings on S3 behind the proxy (or files: no proxy). */
export async function startFaultStack(
  natsUrl: string,
  env: Record<string, string>,
  storage: 's3' | 'files' = 's3',
): Promise<Stack> {
  const s3 = storage === 's3' ? await startS3Endpoint() : null;
  const proxy = s3 ? await startFaultProxy({ port: Number(new URL(s3.connection.endpoint).port) }) : null;
  const bucket = s3 && recordingsS3Env(s3.connection, proxy!.url);
  const { driver, listener } = listeningDriver();
  const h = await startHarness(
    {
      ...bucket,
      // An attempt waits 3 s: storage answering 7 s late times every first attempt out.
      RECORDING_APPEND_TIMEOUT_MS: '3000',
      // A stop's drain outlasts the end's 2 s wait for a recording (then the spool gets as long).
      WORKER_DRAIN_MS: '3000',
      // Leases are not under test here: a loaded machine must not lose the worker.
      WORKER_LEASE_MS: '6000',
      ...env,
    },
    { natsUrl, driver },
  );
  const requests = new RecordingRequests(h.bus);
  await h.bus.flush();
  return {
    h,
    proxy: proxy!,
    listener,
    requests,
    async stop() {
      await requests.stop();
      await h.stop();
      await proxy?.close();
      await s3?.stop();
    },
  };
}

/**
 * A live recorded meeting whose page hands over a second of tone every second until `stop()`
 * (`seconds` of tone at most, at `bitrate`).
 */
export async function toneMeeting(stack: Stack, seconds = 90, bitrate?: string) {
  const { meetingId } = await stack.h.startLive({ recording: 'audio' });
  const live = Date.parse((await stack.h.waitForEvent(meetingId, (e) => e.payload.status === 'live')).timestamp);
  const requests = {
    retries: () => stack.requests.retries(meetingId),
    finishes: () => stack.requests.finishes(meetingId),
    expectOneIdentityPerBatch: () => stack.requests.expectOneIdentityPerBatch(meetingId),
  };
  const tone = toneSource(seconds, bitrate);
  const listener = stack.listener(meetingId);
  // The page's first slice comes a second in, as MediaRecorder's does: it fills the timeline's first second.
  await sleep(Math.max(0, live + 1000 - Date.now()));
  // Someone speaks throughout: captions flow, and the record's state rides on their events.
  const bot = await stack.h.driver.meeting(meetingId);
  let words = 0;
  const handOver = () => {
    listener.audio(tone.next(1000));
    bot.caption({ captionId: 'c1', speaker: 'Ada', text: `word ${++words}` });
  };
  handOver();
  const feeding = setInterval(handOver, 1000);
  return {
    meetingId,
    live,
    requests,
    /** Opus packets handed over so far. */
    packetsMade: () => tone.taken(),
    /** The page hands over nothing more. */
    quiet: () => clearInterval(feeding),
    /** Stops the tone and the meeting; resolves with when the stop was asked (ms after live). */
    async stop(): Promise<number> {
      clearInterval(feeding);
      const at = Date.now();
      await stack.h.request('stop', { caller: TOKEN_CALLER, meetingId });
      return at - live;
    },
  };
}

/** The meeting's warnings and recording as the status verb shows them now. */
export async function liveRecording(h: Harness, meetingId: string) {
  const { meetings } = await h.request<{
    meetings: Array<{ meetingId: string; warnings: string[]; recording: RecordingInfo | null }>;
  }>('status', { caller: TOKEN_CALLER });
  const meeting = meetings.find((m) => m.meetingId === meetingId);
  return { warnings: meeting?.warnings ?? [], recording: meeting?.recording ?? null };
}

export type ToneMeeting = Awaited<ReturnType<typeof toneMeeting>>;
