/**
 * The worker's WebM demuxer and batches (src/recording/webm.ts, webm-batches.ts) on real
 * MediaRecorder output: headless Chromium records a few seconds with tone bursts, sliced as the
 * capture script slices it. ffprobe (Debian's ffmpeg) reads the same bytes independently: the
 * demuxer must find the same packets at the same times; the packets written as Ogg must decode
 * (ffmpeg again) with each tone where it was played and silence between.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeAudio, type DecodedAudio } from '../../../../test/support/audio.js';
import { opusPacketSamples, OPUS_RATE } from '../../src/recording/ogg.js';
import type { AudioBatch, RecordingSlice } from '../../src/recording/page-capture.js';
import { RecordingTimeline } from '../../src/recording/timeline.js';
import { WebmBatches } from '../../src/recording/webm-batches.js';
import { WebmDemuxer, WebmError, type WebmFrame } from '../../src/recording/webm.js';
import { chromiumPerSuite, recordTones, type Recorded } from './media-recorder.js';

const TONES = [
  { fromMs: 600, toMs: 1400 },
  { fromMs: 2600, toMs: 3200 },
];
/** Louder than this is the tone (0.3 of full scale: ~7000); Opus silence decodes to about 0. */
const TONE_FLOOR = 2000;
const SILENCE_CEILING = 60;

const bytesOf = (slices: RecordingSlice[]) => Buffer.concat(slices.map((s) => Buffer.from(s.data, 'base64')));

/** ffprobe's reading of a WebM file: each packet's time (ms), duration (ms) and size. */
function probePackets(file: string): Array<{ ms: number; durationMs: number; size: number }> {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'packet=pts_time,duration_time,size',
    '-of',
    'json',
    file,
  ]).toString();
  return (JSON.parse(out) as { packets: Array<Record<string, string>> }).packets.map((p) => ({
    ms: Math.round(Number(p.pts_time) * 1000),
    durationMs: Math.round(Number(p.duration_time) * 1000),
    size: Number(p.size),
  }));
}

/** Feeds the stream in pieces of the given sizes (cycled): every frame it yields. */
function demuxInPieces(bytes: Buffer, sizes: number[]): WebmFrame[] {
  const demuxer = new WebmDemuxer();
  const frames: WebmFrame[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    frames.push(...demuxer.push(bytes.subarray(at, at + size)));
    at += size;
  }
  return frames;
}

/** Every batch the slices make, in order. */
function takeAll(slices: RecordingSlice[]): AudioBatch[] {
  const batches = new WebmBatches();
  return slices.map((s) => batches.take(s)).filter((b): b is AudioBatch => b !== null);
}

/** The file the recorder would write from these batches (its timeline from `startedAt`), decoded. */
function fileOf(batches: AudioBatch[], startedAt: number): DecodedAudio {
  const timeline = new RecordingTimeline(startedAt, 1);
  return decodeAudio(Buffer.concat([timeline.headers(), ...batches.map((b) => timeline.add(b).pages)]));
}

/** Each tone loud in its window (ms from the recorder's start, as the file's timeline is), silence before and between. */
function expectTones(audio: DecodedAudio, tones: Recorded['tones']): void {
  for (const t of tones) {
    expect(audio.rms(t.fromMs + 100, t.toMs - 100), `tone at ${t.fromMs} ms`).to.be.greaterThan(TONE_FLOOR);
  }
  expect(audio.rms(100, tones[0].fromMs - 100), 'silence before').to.be.lessThan(SILENCE_CEILING);
  tones.slice(1).forEach((t, i) => {
    expect(audio.rms(tones[i].toMs + 150, t.fromMs - 100), `silence before the tone at ${t.fromMs} ms`).to.be.lessThan(
      SILENCE_CEILING,
    );
  });
}

describe('recording: the WebM demuxer on MediaRecorder output (headless Chromium)', function () {
  this.timeout(60_000);
  const browser = chromiumPerSuite();
  let opus: Recorded;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'webm-'));
    opus = await recordTones(browser(), {
      mimeType: 'audio/webm;codecs=opus',
      seconds: 4,
      sliceMs: 1000,
      tones: TONES,
    });
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds every packet ffprobe finds, at the same time, with the length its TOC byte says', () => {
    expect(opus.slices.length, 'a slice a second').to.be.within(4, 6);
    const file = path.join(dir, 'opus.webm');
    writeFileSync(file, bytesOf(opus.slices));
    const probed = probePackets(file);

    const demuxer = new WebmDemuxer();
    const frames = opus.slices.flatMap((s) => demuxer.push(Buffer.from(s.data, 'base64')));
    expect(demuxer.tracks.map((t) => [t.type, t.codec])).to.deep.equal([[2, 'A_OPUS']]);
    expect(frames.length).to.be.greaterThan(50);
    expect(frames.map((f) => ({ ms: f.timeUs / 1000, size: f.bytes.length }))).to.deep.equal(
      probed.map((p) => ({ ms: p.ms, size: p.size })),
    );
    expect(frames.map((f) => (opusPacketSamples(f.bytes) * 1000) / OPUS_RATE)).to.deep.equal(
      probed.map((p) => p.durationMs),
    );
  });

  it('yields the same frames however the stream is cut', () => {
    const bytes = bytesOf(opus.slices);
    const whole = new WebmDemuxer().push(bytes);
    expect(whole.length).to.be.greaterThan(50);
    const asData = (frames: WebmFrame[]) => frames.map((f) => [f.track, f.timeUs, f.bytes.toString('hex')]);
    for (const sizes of [[1], [2, 3, 5, 7], [13, 1, 250], [4096]]) {
      expect(asData(demuxInPieces(bytes, sizes)), `pieces of ${sizes.join(',')}`).to.deep.equal(asData(whole));
    }
  });

  it('batches place the packets on the wall clock: the file has each tone where it was played, silence between', () => {
    const batches = takeAll(opus.slices);
    expect(batches.length).to.be.greaterThan(2);
    // The stream's zero is on the wall clock about when start() was called (the file starts there too).
    expect(batches.at(-1)!.epochMs).to.be.within(opus.startCalledAt - 50, opus.startReturnedAt + 250);
    const audio = fileOf(batches, opus.startCalledAt);
    const heard = batches.reduce((ms, b) => ms + b.durationsUs.reduce((a, d) => a + d, 0) / 1000, 0);
    expect(audio.seconds * 1000, 'the audio the page made, nothing filled').to.be.within(heard - 10, heard + 150);
    expectTones(audio, opus.tones);
  });

  it('a renderer stopped for a second catches up: no gap filled, the tones after it where they were played', async function () {
    const stalled = await recordTones(browser(), {
      mimeType: 'audio/webm;codecs=opus',
      seconds: 5,
      sliceMs: 1000,
      tones: [{ fromMs: 3400, toMs: 4200 }],
      stall: { atMs: 1500, forMs: 1000 },
    });
    // The stall shows in Chromium's stamps (a jump, then a burst stamped at once), so it did happen.
    const demuxer = new WebmDemuxer();
    const stamps = stalled.slices.flatMap((s) => demuxer.push(Buffer.from(s.data, 'base64'))).map((f) => f.timeUs);
    const jumps = stamps.slice(1).map((t, i) => t - stamps[i]);
    expect(Math.max(...jumps), 'a jump in the stamps').to.be.greaterThan(500_000);
    const batches = takeAll(stalled.slices);
    const audio = fileOf(batches, stalled.startCalledAt);
    const heard = batches.reduce((ms, b) => ms + b.durationsUs.reduce((a, d) => a + d, 0) / 1000, 0);
    expect(heard, 'the audio of the whole recording, the stalled second included').to.be.greaterThan(4700);
    expect(audio.seconds * 1000, 'nothing filled').to.be.within(heard - 10, heard + 150);
    expectTones(audio, stalled.tones);
  });

  it("a reloaded page's new stream starts a new timeline; slices of a stream whose start was missed are dropped", () => {
    const batches = new WebmBatches();
    const [first, ...rest] = opus.slices;
    expect(batches.take({ ...rest[0] }), 'a stream seen from its middle').to.equal(null);
    const a = [first, ...rest].map((s) => batches.take(s)).filter((b) => b !== null);
    const again = opus.slices.map((s) => batches.take({ ...s, stream: 'reloaded' })).filter((b) => b !== null);
    expect(again.map((b) => b.timestampsUs)).to.deep.equal(a.map((b) => b.timestampsUs));
    // A late slice of the stream the reload replaced is not mistaken for the new one's.
    expect(batches.take(rest[1])).to.equal(null);
  });

  it('refuses what is not an Opus WebM stream: other bytes, another codec; skips the cluster of a laced block', async () => {
    expect(() => new WebmDemuxer().push(Buffer.from('OggS\0\x02 not webm at all'))).to.throw(WebmError, /EBML header/);

    const pcm = await recordTones(browser(), {
      mimeType: 'audio/webm;codecs=pcm',
      seconds: 1.5,
      sliceMs: 1000,
      tones: [],
    });
    const batches = new WebmBatches();
    expect(() => pcm.slices.forEach((s) => batches.take(s))).to.throw(WebmError, /A_PCM.*not Opus/);

    // The first cluster's first SimpleBlock (ID 0xA3, a one-byte size, track 1 as 0x81) with its lacing bits set.
    const bytes = bytesOf(opus.slices);
    const cluster = bytes.indexOf(Buffer.from([0x1f, 0x43, 0xb6, 0x75]));
    const block = bytes.findIndex((b, i) => i > cluster && b === 0xa3 && bytes[i + 2] === 0x81);
    expect(cluster).to.be.greaterThan(0);
    const laced = Buffer.from(bytes);
    laced[block + 5] |= 0x02;
    // Not read, and not the end of the stream either: the stream is read on from the next cluster (unreadable-slices.spec.ts).
    const asData = (frames: WebmFrame[]) => frames.map((f) => [f.timeUs, f.bytes.toString('hex')]);
    const whole = new WebmDemuxer().push(bytes);
    const next = bytes.indexOf(Buffer.from([0x1f, 0x43, 0xb6, 0x75]), cluster + 1);
    const inFirst = new WebmDemuxer().push(bytes.subarray(0, next)).length;
    expect(inFirst).to.be.within(5, whole.length - 5);
    const read = new WebmDemuxer().push(laced);
    expect(read[0].resumed).to.match(/laced/);
    expect(asData(read), 'every frame from the second cluster on').to.deep.equal(asData(whole.slice(inFirst)));
  });
});
