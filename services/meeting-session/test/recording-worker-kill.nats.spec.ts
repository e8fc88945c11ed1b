/**
 * A worker SIGKILLed while storage refused its meeting's audio, over a real nats-server: the
 * registry (with transcript-store on a local S3 server behind a fault proxy) in this process,
 * the workers as processes of their own, each bot's page handing over a second of audio every
 * second. The audio the dead worker had spooled is on its disk:
 *
 * - a worker started on that disk before the lease sweep sends it and finishes the file, which
 *   then reaches as far as the kill; the sweep's `recording_saved` says so;
 * - one started after the sweep already finished the file (storage back meanwhile) finds it
 *   complete: it says in a warning how many seconds were lost, and deletes the spool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { routes } from '@notetaker/contracts';
import { call } from '@notetaker/bus';
import { decodeAudio } from '../../../test/support/audio.js';
import { eventually, sleep } from '../../../test/support/wait.js';
import { recordingsS3Env, startS3Endpoint } from '../../transcript-store/test/support/s3-server.js';
import { spawnSession, type Child } from './support/child.js';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.js';
import { lateHarness, startHarness, type Harness } from './support/harness.js';
import { natsServerForSuite } from './support/nats-suite.js';
import { expectPagesOnceInOrder, RecordingRequests, storedBytes } from './support/recordings.js';

/** Long enough for a worker to be started again before the sweep gives the meeting up. */
const LEASE_MS = 20_000;

describe('a worker killed with a recording spool (NATS, separate processes, S3 behind a fault proxy)', function () {
  this.timeout(150_000);
  const nats = natsServerForSuite();
  let proxy: FaultProxy;
  let requests: RecordingRequests;
  let harness: Harness | undefined;
  const h = lateHarness(() => harness);

  before(async () => {
    const s3 = await startS3Endpoint();
    proxy = await startFaultProxy({ port: Number(new URL(s3.connection.endpoint).port) });
    const c = s3.connection;
    harness = await startHarness(
      {
        MEETING_SESSION_ROLE: 'registry',
        WORKER_LEASE_MS: String(LEASE_MS),
        ...recordingsS3Env(c, proxy.url),
      },
      { natsUrl: nats.url },
    );
    requests = new RecordingRequests(harness.bus);
    await harness.bus.flush();
    nats.release(async () => {
      await requests.stop();
      await harness?.stop();
      await proxy.close();
      await s3.stop();
    });
  });

  /** A worker process on `dataDir`, its log lines as facts, ready once it is in the placement group. */
  async function worker(dataDir: string): Promise<Child> {
    const child = spawnSession('worker', {
      NATS_URL: nats.url,
      DATA_DIR: dataDir,
      MEETING_SESSION_ROLE: 'worker',
      WORKER_LEASE_MS: String(LEASE_MS),
      ALONE_TIMEOUT_MS: '600000',
      SCRIPTED_AUDIO_MS: '1000',
      RECORDING_APPEND_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'info',
    });
    nats.release(() => child.kill());
    await child.waitFor((f) => 'ready' in f, 30_000, 'ready');
    return child;
  }

  /** A recorded meeting on `child`, live, storage keeping up; then storage refuses for `refusedMs` and the worker is killed. */
  async function killedWithSpool(child: Child, refusedMs: number) {
    const { meetingId } = await h.start({ recording: 'audio' });
    await child.waitFor((f) => f.placed === meetingId, 20_000, 'the placement');
    const live = Date.parse((await h.waitForEvent(meetingId, (e) => e.payload.status === 'live', 20_000)).timestamp);
    const info = () => call(h.bus, routes.recordings.get, { meetingId });
    await eventually(async () => ((await info())?.durationMs ?? 0) > 2000, 'two seconds stored', 15_000);
    proxy.setMode({ kind: 'refuse' });
    await sleep(refusedMs);
    await child.kill();
    const killedAtMs = Date.now() - live;
    const storedMs = (await info())?.durationMs ?? 0;
    expect(storedMs, 'storage took none of the last seconds').to.be.below(killedAtMs - refusedMs + 1500);
    return { meetingId, killedAtMs, storedMs };
  }

  const spoolOf = (dataDir: string, meetingId: string) => path.join(dataDir, 'recording-spool', meetingId);

  it('the next worker on its disk sends the spool before the sweep: the file reaches the kill', async () => {
    const dataDir = nats.tempDir('meeting-worker-');
    const first = await worker(dataDir);
    const { meetingId, killedAtMs, storedMs } = await killedWithSpool(first, 5000);
    expect(fs.existsSync(path.join(spoolOf(dataDir, meetingId), 'meta.json')), 'the spool on disk').to.equal(true);

    proxy.setMode({ kind: 'pass' });
    const next = await worker(dataDir);
    await next.waitFor(
      (f) => f.meetingId === meetingId && f.msg === 'sending the recording audio a previous process spooled',
      10_000,
      'the spool resumed',
    );
    await eventually(() => !fs.existsSync(spoolOf(dataDir, meetingId)), 'the spool sent and removed', 20_000);
    const finish = requests.finishes(meetingId).at(-1)!;
    // The meeting was lost when that worker died: worker_lost from where its spool ends.
    expect(finish.lostAtMs).to.be.at.least(killedAtMs);

    // The lease runs out: the registry ends the meeting, and the file it finishes is the one sent.
    const saved = await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved', LEASE_MS + 15_000);
    await h.waitForEvent(meetingId, (e) => e.payload.reason === 'worker_lost');
    const file = await storedBytes(h.bus, meetingId);
    expect(saved.payload.bytes).to.equal(file.length);
    expectPagesOnceInOrder(file);
    requests.expectOneIdentityPerBatch(meetingId);
    const seconds = decodeAudio(file).seconds;
    expect(seconds * 1000, 'more than storage had before the kill').to.be.above(storedMs + 3000);
    expect(seconds * 1000, 'up to the kill').to.be.within(killedAtMs - 1500, killedAtMs + 500);
    // Its meetings are placed on the next case's worker only.
    await next.kill();
  });

  it('one started after the sweep finished the file: the spool is deleted, the seconds lost said in a warning', async () => {
    const dataDir = nats.tempDir('meeting-worker-');
    const first = await worker(dataDir);
    const { meetingId } = await killedWithSpool(first, 4000);
    // No worker comes back before the lease runs out: the sweep finishes the file with what storage holds.
    proxy.setMode({ kind: 'pass' });
    await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved', LEASE_MS + 15_000);
    await h.waitForEvent(meetingId, (e) => e.payload.reason === 'worker_lost');

    const next = await worker(dataDir);
    const lost = await next.waitFor(
      (f) => f.meetingId === meetingId && typeof f.lostSeconds === 'number',
      15_000,
      'the warning of the audio lost',
    );
    expect(lost.level).to.equal(40); // pino's warn
    expect(lost.msg).to.match(/s of audio lost$/);
    expect(lost.lostSeconds).to.be.within(2.5, 6);
    await eventually(() => !fs.existsSync(spoolOf(dataDir, meetingId)), 'the spool deleted');
  });
});
