/**
 * The worker's recording spool on a real disk (src/recording/spool.ts): batches are cut at page
 * boundaries and keep their identity until acknowledged, in this process and after a restart
 * (a write the kill cut short is cut off); acknowledged segments go; the bytes it holds are
 * counted for its limit. And the timeline across a stretch the spool refused (timeline.ts
 * mark/rewind): never written, the file runs on with silence there, page numbers without a hole,
 * and ffmpeg decodes it with the tone on both sides at its time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { decodeAudio } from '../../../../test/support/audio.js';
import { MAX_BATCH_BYTES, Spool, type MeetingSpool } from '../../src/recording/spool.js';
import { RecordingTimeline } from '../../src/recording/timeline.js';
import { oggPages, toneSource } from '../support/opus-tone.js';

const MEETING = 'meeting_1700000000000_abcdefghABCDEFGH';

describe('recording spool (files)', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A spool holding headers and `seconds` of the tone, one write a second. */
  function written(seconds: number, spool = new Spool(dir, 100_000_000)) {
    const startedAt = Date.now() - seconds * 1000;
    const timeline = new RecordingTimeline(startedAt, 7);
    const meeting = spool.create(MEETING, startedAt);
    meeting.write(timeline.headers(), 0);
    const tone = toneSource(seconds);
    const durationMs = () => Math.round((timeline.samples * 1000) / 48_000);
    for (let s = 0; s < seconds; s++) {
      const batch = tone.next(1000);
      batch.epochMs = startedAt + s * 1000;
      meeting.write(timeline.add(batch).pages, durationMs());
    }
    return { spool, meeting, timeline };
  }

  /** Everything the spool holds, sent batch by batch as the uplink would: the file storage gets. */
  function drain(meeting: MeetingSpool): Buffer {
    const parts: Buffer[] = [];
    let offset = meeting.meta.ackedOffset;
    for (let next = meeting.next(); next; next = meeting.next()) {
      expect(next.batch.offset).to.equal(offset, 'offsets are contiguous');
      offset += next.bytes.length;
      parts.push(next.bytes);
      meeting.acknowledged(next.batch);
    }
    return Buffer.concat(parts);
  }

  it('cuts batches of whole pages at most MAX_BATCH_BYTES, the same one until acknowledged, and deletes what is acknowledged', () => {
    const { spool, meeting } = written(12);
    expect(meeting.pendingBytes).to.be.above(2 * MAX_BATCH_BYTES); // 256 kbit/s: about 32 KB a second
    const first = meeting.next()!;
    expect(first.batch).to.include({ sequence: 0, offset: 0 });
    expect(first.bytes.length).to.be.at.most(MAX_BATCH_BYTES).and.equal(first.batch.length);
    expect(
      oggPages(first.bytes).reduce((n, p) => n + p.length, 0),
      'whole pages only',
    ).to.equal(first.bytes.length);
    // Not acknowledged: the same batch, byte for byte, however often it is asked for.
    const again = meeting.next()!;
    expect(again.batch).to.deep.equal(first.batch);
    expect(again.bytes.equals(first.bytes)).to.equal(true);
    meeting.acknowledged(first.batch);
    const second = meeting.next()!;
    expect(second.batch).to.include({ sequence: 1, offset: first.batch.length });
    expect(second.batch.durationMs).to.be.above(first.batch.durationMs);

    const held = spool.bytes;
    meeting.acknowledged(second.batch);
    const file = Buffer.concat([first.bytes, second.bytes, drain(meeting)]);
    expect(meeting.pendingBytes).to.equal(0);
    expect(spool.bytes, 'acknowledged segments deleted').to.be.below(held);
    expect(fs.readdirSync(path.join(dir, MEETING)).filter((f) => f.endsWith('.ogg'))).to.deep.equal([]);
    const pages = oggPages(file);
    expect(pages.map((p) => p.sequence)).to.deep.equal(pages.map((_, i) => i));
    expect(decodeAudio(file).seconds).to.be.within(11.9, 12.1);
    meeting.remove();
    expect(fs.existsSync(path.join(dir, MEETING))).to.equal(false);
    expect(spool.bytes).to.equal(0);
  });

  it('after a kill: the batch being sent keeps its identity, a half-written page is cut off, the rest follows', () => {
    const { meeting } = written(10);
    const sealed = meeting.next()!;
    meeting.acknowledged(sealed.batch);
    const inFlight = meeting.next()!; // sent, never answered: then the process is killed
    const end = meeting.pendingBytes + meeting.meta.ackedOffset;
    const segments = fs
      .readdirSync(path.join(dir, MEETING))
      .filter((f) => f.endsWith('.ogg'))
      .sort();
    // The kill cut the last write in the middle of a page.
    fs.appendFileSync(path.join(dir, MEETING, segments.at(-1)!), Buffer.from('OggS\0\0\0\0half a page'));

    const restarted = new Spool(dir, 100_000_000);
    const { spools, unreadable } = restarted.leftovers();
    expect(unreadable).to.deep.equal([]);
    expect(spools.map((s) => s.meetingId)).to.deep.equal([MEETING]);
    const again = spools[0];
    expect(again.pendingBytes + again.meta.ackedOffset, 'the half page is gone').to.equal(end);
    expect(again.durationMs).to.be.within(9900, 10_100);
    const resent = again.next()!;
    expect(resent.batch).to.deep.equal(inFlight.batch);
    expect(resent.bytes.equals(inFlight.bytes)).to.equal(true);
    again.acknowledged(resent.batch);
    const rest = drain(again);
    expect(rest.length, 'more after it').to.be.above(0);
    expect(again.meta.nextSequence).to.be.above(resent.batch.sequence + 1);
    const file = Buffer.concat([sealed.bytes, resent.bytes, rest]);
    expect(decodeAudio(file).seconds).to.be.within(9.9, 10.1);
    expect(restarted.bytes).to.be.at.most(again.pendingBytes + 1024 * 1024);
  });

  it('counts what it holds against its limit', () => {
    const spool = new Spool(dir, 200_000);
    const { meeting } = written(3, spool);
    expect(spool.bytes).to.equal(meeting.pendingBytes).and.be.above(90_000);
    expect(spool.hasRoom(200_000 - spool.bytes)).to.equal(true);
    expect(spool.hasRoom(200_001 - spool.bytes)).to.equal(false);
  });

  it('a stretch the spool refused is silence in a file that decodes, page numbers and granules running on', () => {
    const startedAt = Date.now() - 10_000;
    const timeline = new RecordingTimeline(startedAt, 9);
    const parts = [timeline.headers()];
    const tone = toneSource(10);
    for (let s = 0; s < 10; s++) {
      const batch = tone.next(1000);
      batch.epochMs = startedAt + s * 1000;
      const mark = timeline.mark();
      const pages = timeline.add(batch).pages;
      // Seconds 3 to 6: the spool is full; those pages are never written.
      if (s >= 3 && s < 7) timeline.rewind(mark);
      else parts.push(pages);
    }
    const file = Buffer.concat(parts);
    const pages = oggPages(file);
    expect(pages.map((p) => p.sequence)).to.deep.equal(pages.map((_, i) => i));
    for (let i = 1; i < pages.length; i++) expect(pages[i].granule).to.be.at.least(pages[i - 1].granule);
    const audio = decodeAudio(file);
    expect(audio.seconds).to.be.within(9.9, 10.1);
    expect(audio.rms(500, 2800), 'the tone before').to.be.above(2000);
    expect(audio.rms(3200, 6800), 'silence where the spool was full').to.be.below(60);
    expect(audio.rms(7200, 9800), 'the tone after, at its time').to.be.above(2000);
  });
});
