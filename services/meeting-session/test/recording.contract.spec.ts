/**
 * A recorded meeting over the bus, with meeting-session and transcript-store for real: the audio the
 * page hands over becomes an Ogg file in storage as it arrives, the status says how far it got,
 * the end completes it (`recording_saved`, the document's link), and storage that refuses the
 * audio warns without costing the transcript a word.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { routes, type RecordingInfo } from '@notetaker/contracts';
import { call } from '@notetaker/bus';
import { harnessForSuite, TOKEN_CALLER } from './support/harness.js';
import { eventually, eventuallyPasses, sleep } from '../../../test/support/wait.js';
import { decodeAudio } from '../../../test/support/audio.js';

const decodedSeconds = (file: string) => decodeAudio(file).seconds;

describe('recording (bus contract)', function () {
  this.timeout(30_000);
  const h = harnessForSuite();
  /** Where the filesystem storage keeps the file: beside the others once complete, apart while it grows. */
  const fileOf = (meetingId: string) => {
    const complete = path.join(h.dataDir, 'recordings', `${meetingId}.ogg`);
    const growing = path.join(h.dataDir, 'recordings', '.incomplete', `${meetingId}.ogg`);
    return fs.existsSync(growing) ? growing : complete;
  };

  it('stores the audio as it comes, says so in the status, and completes the file at the end', async () => {
    const { meetingId, bot } = await h.startLive({ recording: 'audio' });
    const live = Date.parse((await h.waitForEvent(meetingId, (e) => e.payload.status === 'live')).timestamp);
    expect(bot.target.recordAudio).to.equal(true);
    bot.participants(['Ada']);
    for (let i = 0; i < 3; i++) bot.audio(1000);
    bot.segment({ speaker: 'Ada', text: 'We ship on Friday.' });

    // Durable while live: the file holds what arrived, and plays.
    await eventually(
      () => fs.existsSync(fileOf(meetingId)) && decodedSeconds(fileOf(meetingId)) > 2.5,
      'three seconds stored',
    );
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
    const size = fs.statSync(fileOf(meetingId)).size;
    expect(saved.payload).to.deep.include({ status: 'saved', format: 'audio/ogg', bytes: size });
    // Three seconds of audio, and the timeline runs on to the stop.
    expect(saved.payload.durationMs).to.be.within(Math.max(2900, stoppedAt - 300), Math.max(3100, stoppedAt + 300));
    expect(decodedSeconds(fileOf(meetingId)) * 1000).to.be.within(
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
    const audio = decodeAudio(fileOf(meetingId));
    expect(audio.seconds).to.be.within((stoppedAt - 300) / 1000, (stoppedAt + 300) / 1000);
  });

  it('records nothing when the start does not ask for it', async () => {
    const { meetingId, bot } = await h.startLive();
    expect(bot.target.recordAudio).to.equal(false);
    bot.audio(1000);
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    expect(h.events(meetingId).some((e) => e.type === 'recording_saved')).to.equal(false);
    expect(await call(h.bus, routes.recordings.get, { meetingId })).to.equal(null);
    expect(fs.existsSync(fileOf(meetingId))).to.equal(false);
  });

  it('warns recording_unavailable when storage refuses the audio, and the transcript goes on whole', async () => {
    const { meetingId, bot } = await h.startLive({ recording: 'audio' });
    bot.audio(1000);
    await eventually(() => fs.existsSync(fileOf(meetingId)), 'the file');
    // The storage breaks under the file: the next appends are refused.
    const file = fileOf(meetingId);
    fs.rmSync(file);
    fs.symlinkSync('/dev/full', file);
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
});
