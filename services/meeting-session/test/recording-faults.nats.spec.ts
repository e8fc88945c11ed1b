/**
 * A recorded meeting while storage fails, over a real nats-server, with transcript-store for real
 * on a local S3 server behind a TCP proxy that injects the faults (connections refused, 503s,
 * answers 7 s late, no answer at all), or on files with transcript-store itself gone for a while
 * (stopped, then started again on the same data).
 * The bot's page hands over a real Opus tone, so what is missing from the file is heard missing.
 *
 * - storage away for a while, then back: every batch is stored once, in order, none missing;
 * - storage answering late (the worker's attempts time out and are sent again): nothing twice;
 * - storage hung: the meeting is `ended` within 10 s of the stop, `recording_saved` comes after it
 *   once storage answers;
 * - the spool full: a `spool_full` gap with its times, silence there, nothing else lost;
 * - a worker stopped before storage took its spool: the next process sends it.
 * A worker killed (SIGKILL) with a spool: recording-worker-kill.nats.spec.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { EventEnvelope, RecordingInfo } from '@notetaker/contracts';
import { decodeAudio } from '../../../test/support/audio.js';
import { eventually, eventuallyPasses, sleep } from '../../../test/support/wait.js';
import type { FaultMode } from '../../../test/support/fault-proxy.js';
import { TOKEN_CALLER } from './support/harness.js';
import { natsServerForSuite } from './support/nats-suite.js';
import { liveRecording, startFaultStack, toneMeeting, type Stack, type ToneMeeting } from './support/fault-stack.js';
import { expectPagesOnceInOrder, storedBytes } from './support/recordings.js';

/** The tone decodes at about 2900 RMS; Opus silence at about 0. */
const TONE_FLOOR = 1000;
const SILENCE_CEILING = 100;

/** Call in a describe body: NATS, the stack on it with `env`, its recordings on S3 behind the proxy (or files). */
function stackForSuite(env: Record<string, string>, storage: 's3' | 'files' = 's3'): () => Stack {
  const nats = natsServerForSuite();
  let stack: Stack | undefined;
  before(async () => {
    stack = await startFaultStack(nats.url, env, storage);
    nats.release(() => stack?.stop());
  });
  return () => stack!;
}

type Meeting = ToneMeeting;

/** The tone is heard in every second of [fromMs, toMs] of the file. */
function expectToneThroughout(file: Buffer, fromMs: number, toMs: number): void {
  const audio = decodeAudio(file);
  for (let at = fromMs; at + 1000 <= toMs; at += 1000)
    expect(audio.rms(at, at + 1000), `the tone at ${at} ms`).to.be.above(TONE_FLOOR);
}

/** Storage fails for a while mid-meeting, then answers again; the meeting is stopped after. */
async function outage(stack: Stack, m: Meeting, fault: { begin(): Promise<void>; end(): Promise<void> }) {
  const { h } = stack;
  await sleep(3000);
  await fault.begin();
  const warned = await h.waitForEvent(m.meetingId, (e) => e.payload.warning === 'recording_unavailable', 15_000);
  expect(warned.payload).to.include({ status: 'live' });
  await eventuallyPasses(async () => {
    const { warnings, recording } = await liveRecording(h, m.meetingId);
    expect(warnings).to.include('recording_unavailable');
    expect(recording?.pendingBytes).to.be.above(0);
  }, 'the status shows the audio waiting on the worker');
  await sleep(4000);
  await fault.end();
  await eventuallyPasses(
    async () => expect((await liveRecording(h, m.meetingId)).warnings).to.not.include('recording_unavailable'),
    'the warning cleared once storage takes the audio again',
    20_000,
  );
  await sleep(2000);
}

/** The file as the meeting ended: every batch once, in order, the tone all along. */
async function expectWholeFile(stack: Stack, m: Meeting, stoppedAtMs: number) {
  const saved = await stack.h.waitForEvent(m.meetingId, (e) => e.type === 'recording_saved', 30_000);
  const file = await storedBytes(stack.h.bus, m.meetingId);
  expect(saved.payload.bytes).to.equal(file.length);
  expectPagesOnceInOrder(file);
  m.requests.expectOneIdentityPerBatch();
  expect(decodeAudio(file).seconds * 1000).to.be.within(stoppedAtMs - 700, stoppedAtMs + 700);
  // From the second second: on a loaded machine the tone's first batch may reach the timeline late
  // (silence before it); the faults begin at 3 s.
  expectToneThroughout(file, 1300, stoppedAtMs - 1300);
  return { file, saved };
}

describe('recording while storage fails (NATS, transcript-store on S3 behind a fault proxy)', function () {
  this.timeout(120_000);
  const stack = stackForSuite({});

  for (const [label, modes] of [
    ['connections refused, then 503s', [{ kind: 'refuse' }, { kind: 'unavailable' }]],
    ['no answer at all (requests time out), then 503s', [{ kind: 'hang' }, { kind: 'unavailable' }]],
  ] as Array<[string, FaultMode[]]>)
    it(`storage away (${label}), then back: every batch stored once, in order, none missing`, async () => {
      const s = stack();
      const m = await toneMeeting(s);
      await outage(s, m, {
        async begin() {
          s.proxy.setMode(modes[0]);
          await sleep(4000);
          s.proxy.setMode(modes[1]);
        },
        end: async () => s.proxy.setMode({ kind: 'pass' }),
      });
      const stoppedAt = await m.stop();
      await expectWholeFile(s, m, stoppedAt);
      expect(m.requests.retries(), 'batches were sent again').to.be.above(0);
      expect(await s.h.metrics()).to.match(/meeting_recording_append_retries_total\{[^}]*\} [1-9]/);
    });

  it('storage answering every request 7 s late: attempts time out and are sent again, nothing is stored twice', async () => {
    const s = stack();
    const m = await toneMeeting(s);
    await sleep(2000);
    s.proxy.setMode({ kind: 'late', delayMs: 7000 });
    await sleep(15_000);
    s.proxy.setMode({ kind: 'pass' });
    await sleep(4000);
    const stoppedAt = await m.stop();
    await expectWholeFile(s, m, stoppedAt);
    // The first attempts' writes landed after their retries were sent (3 s timeout, 7 s answers).
    expect(m.requests.retries()).to.be.above(1);
  });

  it('storage hung: the meeting is ended within 10 s of the stop; recording_saved comes after, once storage answers', async () => {
    const s = stack();
    const m = await toneMeeting(s);
    await sleep(3000);
    s.proxy.setMode({ kind: 'hang' });
    await sleep(4000);
    const stoppedAt = await m.stop();
    const stopped = Date.now();
    const ended = await s.h.waitForEvent(m.meetingId, (e) => e.payload.status === 'ended', 10_000);
    expect(Date.now() - stopped, 'ended within 10 s of the stop').to.be.below(10_000);
    expect(s.h.events(m.meetingId).some((e) => e.type === 'recording_saved')).to.equal(false);
    // The record shows the recording still on its way: audio waiting on the worker.
    const record = await s.h.request<{ recording: RecordingInfo | null }>('get', {
      caller: TOKEN_CALLER,
      meetingId: m.meetingId,
    });
    expect(record.recording).to.include({ status: 'recording' });
    expect(record.recording?.pendingBytes).to.be.above(0);

    await sleep(3000);
    s.proxy.setMode({ kind: 'pass' });
    const { saved } = await expectWholeFile(s, m, stoppedAt);
    expect(saved.sequence, 'recording_saved after ended').to.be.above(ended.sequence);
    const { events } = await s.h.request<{ events: EventEnvelope[] }>('events', {
      meetingId: m.meetingId,
      afterSequence: 0,
    });
    expect(events.map((e) => e.type).slice(-2)).to.deep.equal(['meeting_status', 'recording_saved']);
    await eventuallyPasses(async () => {
      const after = await s.h.request<{ recording: RecordingInfo | null }>('get', {
        caller: TOKEN_CALLER,
        meetingId: m.meetingId,
      });
      expect(after.recording).to.include({ status: 'saved', bytes: saved.payload.bytes });
    }, "the record's recording saved");
  });

  it('a worker stopped before storage took its spool: the next process sends it and finishes the file', async () => {
    const s = stack();
    const m = await toneMeeting(s);
    await sleep(3000);
    s.proxy.setMode({ kind: 'refuse' });
    await sleep(4000);
    m.quiet();
    const stoppedAt = Date.now() - m.live;
    // A restart (an upgrade) with storage away: the meeting ends, its audio stays on the worker's disk.
    await s.h.stopSession();
    const spooled = path.join(s.h.dataDir, 'recording-spool', m.meetingId);
    expect(fs.existsSync(path.join(spooled, 'meta.json')), 'the spool kept').to.equal(true);
    const ended = await s.h.waitForEvent(m.meetingId, (e) => e.payload.status === 'ended');
    expect(ended.payload.reason).to.equal('worker_shutdown');
    s.proxy.setMode({ kind: 'pass' });
    await s.h.restartSession();
    const saved = await s.h.waitForEvent(m.meetingId, (e) => e.type === 'recording_saved', 30_000);
    expect(saved.sequence).to.be.above(ended.sequence);
    const file = await storedBytes(s.h.bus, m.meetingId);
    expectPagesOnceInOrder(file);
    m.requests.expectOneIdentityPerBatch();
    // Up to the worker's stop (the page's last second may not have come), the tone all along.
    expect(decodeAudio(file).seconds * 1000).to.be.within(stoppedAt - 1500, stoppedAt + 2500);
    expectToneThroughout(file, 300, stoppedAt - 1500);
    await eventually(() => !fs.existsSync(spooled), 'the spool removed once the file is finished');
  });
});

describe('recording on files while transcript-store is away (NATS)', function () {
  this.timeout(120_000);
  const stack = stackForSuite({}, 'files');

  it('transcript-store stopped for a while, then started again: every batch stored once, in order, none missing', async () => {
    const s = stack();
    const m = await toneMeeting(s);
    await outage(s, m, { begin: () => s.h.stopStore(), end: () => s.h.startStore() });
    const stoppedAt = await m.stop();
    await expectWholeFile(s, m, stoppedAt);
    expect(m.requests.retries(), 'batches were sent again').to.be.above(0);
  });
});

describe('recording with a full spool (NATS, S3 refusing)', function () {
  this.timeout(120_000);
  // 0.3 MB: about 9 s of the test's 256 kbit/s tone.
  const stack = stackForSuite({ RECORDING_SPOOL_MAX_MB: '0.3' });

  it('drops audio only while the spool is full: a spool_full gap with its times, silence there, nothing else lost', async () => {
    const s = stack();
    const m = await toneMeeting(s);
    await sleep(3000);
    s.proxy.setMode({ kind: 'refuse' });
    const refusedAt = Date.now() - m.live;
    let gapStart = 0;
    await eventuallyPasses(
      async () => {
        const { recording } = await liveRecording(s.h, m.meetingId);
        const gap = recording?.gaps.find((g) => g.reason === 'spool_full');
        expect(gap, 'a spool_full gap in the status').to.not.equal(undefined);
        gapStart = gap!.startMs;
      },
      'the spool full',
      25_000,
    );
    // Full after about 9 s of refused audio (what the spool holds), not before.
    expect(gapStart).to.be.within(refusedAt + 6000, refusedAt + 12_000);
    await sleep(5000);
    expect(await s.h.metrics()).to.match(/meeting_recording_spool_dropped_seconds_total\{[^}]*\} [1-9]/);
    s.proxy.setMode({ kind: 'pass' });
    const backAt = Date.now() - m.live;
    await sleep(5000);
    const stoppedAt = await m.stop();
    await s.h.waitForEvent(m.meetingId, (e) => e.type === 'recording_saved', 30_000);

    await eventually(() => m.requests.finishes().length > 0, 'the finish sent');
    const gaps = m.requests.finishes()[0].gaps ?? [];
    expect(gaps).to.have.length(1);
    const [gap] = gaps;
    expect(gap).to.include({ reason: 'spool_full', startMs: gapStart });
    // Room again as soon as storage took the first batches back.
    expect(gap.endMs).to.be.within(backAt - 500, backAt + 5000);

    const file = await storedBytes(s.h.bus, m.meetingId);
    expectPagesOnceInOrder(file);
    m.requests.expectOneIdentityPerBatch();
    const audio = decodeAudio(file);
    expect(audio.seconds * 1000, "the file keeps the meeting's timeline").to.be.within(
      stoppedAt - 700,
      stoppedAt + 700,
    );
    expectToneThroughout(file, 300, gap.startMs - 300);
    expect(audio.rms(gap.startMs + 300, gap.endMs - 300), 'silence where the spool was full').to.be.below(
      SILENCE_CEILING,
    );
    expectToneThroughout(file, gap.endMs + 300, stoppedAt - 1300);
  });
});
