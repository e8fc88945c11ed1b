/**
 * A recorded meeting over the bus, with meeting-session and transcript-store for real: the audio the
 * page hands over becomes an Ogg file in storage as it arrives, the status says how far it got,
 * the end completes it (`recording_saved`, the document's link), and storage that refuses the
 * audio warns without costing the transcript a word.
 */
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '@notetaker/observability';
import path from 'node:path';
import { expect } from 'chai';
import { RECORDING_MAX_CHUNK_BYTES, routes, type RecordingInfo } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import { startS3Endpoint, type S3Endpoint } from '../../transcript-store/test/support/s3-server.js';
import { harnessForSuite, TOKEN_CALLER, type Harness } from './support/harness.js';
import { afterClockMoves, eventually, eventuallyPasses, sleep } from '../../../test/support/wait.js';
import { startRecordingRetention } from '../../task-scheduler/src/recording-retention.js';
import { decodeAudio } from '../../../test/support/audio.js';

/** The recording's bytes as stored now, read over the bus as the gateway reads them. */
async function storedBytes(bus: Bus, meetingId: string): Promise<Buffer> {
  const info = await call(bus, routes.recordings.get, { meetingId });
  const parts: Buffer[] = [];
  for (let start = 0; start < (info?.bytes ?? 0); start += RECORDING_MAX_CHUNK_BYTES - 1) {
    const end = Math.min(info!.bytes, start + RECORDING_MAX_CHUNK_BYTES - 1) - 1;
    parts.push(Buffer.from((await call(bus, routes.recordings.read, { meetingId, start, end })).data, 'base64'));
  }
  return Buffer.concat(parts);
}

const storedSeconds = async (bus: Bus, meetingId: string) => {
  const bytes = await storedBytes(bus, meetingId);
  return bytes.length === 0 ? 0 : decodeAudio(bytes).seconds;
};

interface Storage {
  label: string;
  /** The stack's variables that choose this storage (filled before the harness starts). */
  env: Record<string, string>;
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
  /** Makes the storage refuse the next appends of this meeting's file. */
  refuse(h: Harness, meetingId: string): Promise<void>;
}

function filesystem(): Storage {
  return {
    label: 'files under DATA_DIR',
    env: {},
    async refuse(h, meetingId) {
      // The disk under the growing file is full.
      const file = path.join(h.dataDir, 'recordings', '.incomplete', `${meetingId}.ogg`);
      fs.rmSync(file);
      fs.symlinkSync('/dev/full', file);
    },
  };
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
    const h = harnessForSuite(storage.env);
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
      expect(meetings.find((m) => m.meetingId === meetingId)?.recording).to.include({
        status: 'recording',
        url: `/api/v1/meetings/${meetingId}/recording`,
      });
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
    it('warns recording_unavailable when the page hands over too little of the audio (a browser short of CPU)', async () => {
      const { meetingId, bot } = await h.startLive({ recording: 'audio' });
      bot.audio(1000);
      // 200 ms of audio a second: the renderer makes a fifth of the samples time asks for.
      for (let i = 0; i < 12; i++) {
        await sleep(1000);
        bot.audio(200);
      }
      const warned = await h.waitForEvent(meetingId, (e) => e.payload.warning === 'recording_unavailable', 10_000);
      expect(warned.payload).to.include({ status: 'live' });
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      const saved = await h.waitForEvent(meetingId, (e) => e.type === 'recording_saved');
      expect(saved.payload.status).to.equal('unavailable');
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

  it('warns recording_unavailable when storage refuses the audio, and the transcript goes on whole', async () => {
    const { meetingId, bot } = await h.startLive({ recording: 'audio' });
    bot.audio(1000);
    await eventually(async () => (await storedSeconds(h.bus, meetingId)) > 0.5, 'the first second');
    await storage.refuse(h, meetingId);
    bot.audio(1000);
    const warned = await h.waitForEvent(meetingId, (e) => e.payload.warning === 'recording_unavailable', 10_000);
    expect(warned.payload).to.include({ status: 'live', previousStatus: 'live' });
    await eventuallyPasses(async () => {
      const { meetings } = await h.request<{ meetings: Array<{ meetingId: string; warnings: string[] }> }>('status', {
        caller: TOKEN_CALLER,
      });
      expect(meetings.find((m) => m.meetingId === meetingId)?.warnings).to.include('recording_unavailable');
    });
    bot.segment({ speaker: 'Ada', text: 'Still transcribed.' });
    await h.waitForEvent(meetingId, (e) => e.type === 'segment_finalized');
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    const document = await call(h.bus, routes.transcripts.document, { meetingId, offset: 0 });
    expect(document.content).to.include('Still transcribed.');
    expect(document.content).to.include('recordingStatus: "unavailable"');
  });
}
