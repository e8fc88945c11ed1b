/**
 * A recorded meeting over the bus, with meeting-session and transcript-store for real: the audio the
 * page hands over becomes an Ogg file in storage as it arrives, the status says how far it got,
 * the end completes it (`recording_saved`, the document's link), a page that captures too little
 * says so apart from the file's state, and storage that refuses the audio warns (the worker spools
 * it) without costing the transcript a word or holding the meeting's end. Storage that comes back,
 * answers late, hangs or fills the spool: recording-faults.nats.spec.ts.
 */
import { Writable } from 'node:stream';
import { createLogger } from '@notetaker/observability';
import { expect } from 'chai';
import { routes, type RecordingInfo } from '@notetaker/contracts';
import { call } from '@notetaker/bus';
import { startS3Endpoint, type S3Endpoint } from '../../transcript-store/test/support/s3-server.js';
import { harnessForSuite, TOKEN_CALLER, type Harness } from './support/harness.js';
import { afterClockMoves, eventually, eventuallyPasses, sleep } from '../../../test/support/wait.js';
import { startRecordingRetention } from '../../task-scheduler/src/recording-retention.js';
import { decodeAudio } from '../../../test/support/audio.js';
import { storedBytes, storedSeconds } from './support/recordings.js';

interface Storage {
  label: string;
  /** The stack's variables that choose this storage (filled before the harness starts). */
  env: Record<string, string>;
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
  /** Makes the storage refuse every append from now on (null: no such fault to inject here). */
  refuse: ((h: Harness) => Promise<void>) | null;
}

function filesystem(): Storage {
  // A full disk cannot be made under a running test without privileges; the store's own suite
  // covers ENOSPC, and recording-faults.nats.spec.ts a transcript-store that goes away.
  return { label: 'files under DATA_DIR', env: {}, refuse: null };
}

function bucket(): Storage {
  let endpoint: S3Endpoint | null = null;
  const env: Record<string, string> = {};
  const stopOnce = async () => {
    await endpoint?.stop();
    endpoint = null;
  };
  return {
    label: 'an S3 bucket (a local S3-compatible server)',
    env,
    async start() {
      endpoint = await startS3Endpoint();
      const c = endpoint.connection;
      Object.assign(env, {
        RECORDINGS_S3_URL: c.endpoint,
        RECORDINGS_S3_BUCKET: c.bucket,
        RECORDINGS_S3_REGION: c.region,
        RECORDINGS_S3_ACCESS_KEY_ID: c.accessKeyId ?? '',
        RECORDINGS_S3_SECRET_ACCESS_KEY: c.secretAccessKey ?? '',
      });
    },
    stop: () => stopOnce(),
    // The bucket goes away: every request is refused.
    refuse: () => stopOnce(),
  };
}

const STORAGES = [filesystem(), bucket()];
for (const storage of STORAGES) {
  describe(`recording (bus contract) on ${storage.label}`, function () {
    this.timeout(60_000);
    if (storage.start) before(storage.start);
    // Audio storage never took stays spooled when the suite stops: no long drain.
    const h = harnessForSuite(Object.assign(storage.env, { WORKER_DRAIN_MS: '1000' }));
    if (storage.stop) after(storage.stop);
    suite(h, storage);
  });
}

function suite(h: Harness, storage: Storage): void {
  it('stores the audio as it comes, says so in the status, and completes the file at the end', async () => {
    const { meetingId, bot } = await h.startLive({ recording: 'audio' });
    const live = Date.parse((await h.waitForEvent(meetingId, (e) => e.payload.status === 'live')).timestamp);
    expect(bot.target.recordAudio).to.equal(true);
    bot.participants(['Ada']);
    for (let i = 0; i < 3; i++) bot.audio(1000);
    bot.segment({ speaker: 'Ada', text: 'We ship on Friday.' });

    // Durable while live: the file holds what arrived, and plays.
    await eventually(async () => (await storedSeconds(h.bus, meetingId)) > 2.5, 'three seconds stored');
    const growing = await call(h.bus, routes.recordings.get, { meetingId });
    expect(growing).to.include({ status: 'recording', format: 'audio/ogg' });
    await eventuallyPasses(async () => {
      const { meetings } = await h.request<{ meetings: Array<{ meetingId: string; recording: RecordingInfo | null }> }>(
        'status',
        { caller: TOKEN_CALLER },
      );
      const recording = meetings.find((m) => m.meetingId === meetingId)?.recording;
      expect(recording).to.include({
        status: 'recording',
        url: `/api/v1/meetings/${meetingId}/recording`,
        capture: 'ok',
      });
      expect(recording?.gaps).to.deep.equal([]);
      expect(recording?.pendingBytes).to.be.a('number');
    });

    const stoppedAt = Date.now() - live;
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    const saved = await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved');
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    const file = await storedBytes(h.bus, meetingId);
    expect(saved.payload).to.deep.include({ status: 'saved', format: 'audio/ogg', bytes: file.length });
    // Three seconds of audio, and the timeline runs on to the stop.
    expect(saved.payload.durationMs).to.be.within(Math.max(2900, stoppedAt - 300), Math.max(3100, stoppedAt + 300));
    expect(decodeAudio(file).seconds * 1000).to.be.within(
      Math.max(2800, stoppedAt - 300),
      Math.max(3100, stoppedAt + 300),
    );
    // recording_saved comes before the final document, which links the finished file.
    const types = h.events(meetingId).map((e) => e.type);
    expect(types.indexOf('recording_saved')).to.be.lessThan(types.lastIndexOf('document_saved'));
    const document = await call(h.bus, routes.transcripts.document, { meetingId, offset: 0 });
    expect(document.content).to.include(`recording: "/api/v1/meetings/${meetingId}/recording"`);
    expect(document.content).to.include('recordingStatus: "saved"');
  });

  it("fills a gap in the audio with silence, so the file keeps the meeting's timeline", async () => {
    const { meetingId, bot } = await h.startLive({ recording: 'audio' });
    const live = Date.parse((await h.waitForEvent(meetingId, (e) => e.payload.status === 'live')).timestamp);
    await sleep(500);
    bot.audio(500);
    await sleep(1500); // a page reloading: no audio for 1.5 s
    bot.audio(500);
    await sleep(800); // the stop comes later: the file reaches it in silence
    const stoppedAt = Date.now() - live;
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    const saved = await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved');
    // About 3.3 s on the meeting's clock, of which 1 s of audio came: the timeline is the meeting's.
    expect(saved.payload.durationMs).to.be.within(stoppedAt - 300, stoppedAt + 300);
    expect(await storedSeconds(h.bus, meetingId)).to.be.within((stoppedAt - 300) / 1000, (stoppedAt + 300) / 1000);
  });

  // Nothing of it depends on the storage: registered for the first one only.
  if (storage === STORAGES[0])
    it('warns recording_capture_degraded when the page hands over too little of the audio (a browser short of CPU); the file is saved', async () => {
      const { meetingId, bot } = await h.startLive({ recording: 'audio' });
      bot.audio(1000);
      // 200 ms of audio a second: the renderer makes a fifth of the samples time asks for.
      for (let i = 0; i < 12; i++) {
        await sleep(1000);
        bot.audio(200);
      }
      const warned = await h.waitForEvent(meetingId, (e) => e.payload.warning === 'recording_capture_degraded', 10_000);
      expect(warned.payload).to.include({ status: 'live' });
      await eventuallyPasses(async () => {
        const { meetings } = await h.request<{
          meetings: Array<{ meetingId: string; warnings: string[]; recording: RecordingInfo | null }>;
        }>('status', { caller: TOKEN_CALLER });
        const meeting = meetings.find((m) => m.meetingId === meetingId);
        expect(meeting?.recording?.capture).to.equal('starved');
        expect(meeting?.warnings).to.include('recording_capture_degraded');
        expect(meeting?.warnings).to.not.include('recording_unavailable');
      });
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      const saved = await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved');
      // Capture is not a state of the file: what was captured is all stored, silence where the page gave none.
      expect(saved.payload.status).to.equal('saved');
    });

  if (storage === STORAGES[0])
    it("deletes recordings past RECORDING_RETENTION_DAYS from the scheduler's sweep, and logs it", async () => {
      const { meetingId, bot } = await h.startLive({ recording: 'audio' });
      bot.audio(1000);
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved');
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const retention = startRecordingRetention({
        bus: h.bus,
        logger: createLogger({ service: 'task-scheduler', level: 'info', destination: sink }),
        days: 30,
        sweepMs: 3_600_000,
        leader: () => true,
      });
      try {
        expect(await retention.sweep(), 'a recording of today').to.deep.equal([]);
        const deleted = await afterClockMoves(31 * 86_400_000, () => retention.sweep());
        expect(deleted).to.include(meetingId);
      } finally {
        retention.stop();
      }
      expect(await call(h.bus, routes.recordings.get, { meetingId })).to.equal(null);
      expect(await storedBytes(h.bus, meetingId)).to.have.length(0);
      expect(lines.join('')).to.match(/"msg":"expired recordings deleted"/);
    });

  it('records nothing when the start does not ask for it', async () => {
    const { meetingId, bot } = await h.startLive();
    expect(bot.target.recordAudio).to.equal(false);
    bot.audio(1000);
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    expect(h.events(meetingId).some((e) => e.type === 'recording_saved')).to.equal(false);
    expect(await call(h.bus, routes.recordings.get, { meetingId })).to.equal(null);
  });

  const refuse = storage.refuse;
  if (refuse)
    it('warns recording_unavailable within seconds when storage refuses the audio, spools it, and the transcript and the end go on', async () => {
      const { meetingId, bot } = await h.startLive({ recording: 'audio' });
      bot.audio(1000);
      await eventually(async () => (await storedSeconds(h.bus, meetingId)) > 0.5, 'the first second');
      await refuse(h);
      const refusedAt = Date.now();
      const feeding = setInterval(() => bot.audio(1000), 1000);
      try {
        const warned = await h.waitForEvent(meetingId, (e) => e.payload.warning === 'recording_unavailable', 15_000);
        expect(warned.payload).to.include({ status: 'live', previousStatus: 'live' });
        // Raised once 5 s of audio wait for storage, plus an attempt's time.
        expect(Date.now() - refusedAt).to.be.below(12_000);
        await eventuallyPasses(async () => {
          const { meetings } = await h.request<{
            meetings: Array<{ meetingId: string; warnings: string[]; recording: RecordingInfo | null }>;
          }>('status', { caller: TOKEN_CALLER });
          const meeting = meetings.find((m) => m.meetingId === meetingId);
          expect(meeting?.warnings).to.include('recording_unavailable');
          // What storage did not take is held by the worker, not lost.
          expect(meeting?.recording?.pendingBytes).to.be.above(0);
        });
        bot.segment({ speaker: 'Ada', text: 'Still transcribed.' });
        await h.waitForEvent(meetingId, (e) => e.type === 'segment_finalized');
      } finally {
        clearInterval(feeding);
      }
      const stoppedAt = Date.now();
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended', 10_000);
      expect(Date.now() - stoppedAt, 'the end does not wait for storage').to.be.below(10_000);
      const document = await call(h.bus, routes.transcripts.document, { meetingId, offset: 0 });
      expect(document.content).to.include('Still transcribed.');
    });
}
