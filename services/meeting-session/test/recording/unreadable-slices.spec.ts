/**
 * One bad slice of the page's recording costs that slice, not the rest of the recording: on real
 * MediaRecorder output (headless Chromium, a tone before and after), a slice in the middle is
 * mangled (random bytes, zeros, a block of a track the stream never declared, cut in half) or
 * never comes. The slices after it must be read as if nothing had happened (but the packet whose
 * bytes the cut shared with the bad slice), each packet where it was heard; the span lost must be reported once, with its place on the wall clock; the file
 * (written and decoded as the recorder would) has the tone after it where it was played.
 */
import { expect } from 'chai';
import { decodeAudio } from '../../../../test/support/audio.js';
import type { AudioBatch, RecordingSlice, SkippedAudio } from '../../src/recording/page-capture.js';
import { RecordingTimeline } from '../../src/recording/timeline.js';
import { WebmBatches } from '../../src/recording/webm-batches.js';
import { chromiumPerSuite, recordTones, type Recorded } from './media-recorder.js';

const TONE_FLOOR = 2000;
const SILENCE_CEILING = 60;
/** The slice mangled: about 2 s to 3 s into the recording, between the tones. */
const BAD = 2;
/** Where the audio's placement may differ from a clean reading's (the clock's estimate loses a reading). */
const PLACEMENT_MS = 30;

interface Taken {
  /** Each slice's batch (null: none), in the slices' order. */
  batches: Array<AudioBatch | null>;
  skips: SkippedAudio[];
}

function takeEach(slices: RecordingSlice[]): Taken {
  const skips: SkippedAudio[] = [];
  const reader = new WebmBatches((skip) => skips.push(skip));
  const batches = slices.map((s) => reader.take(s));
  reader.end();
  return { batches, skips };
}

/** Each packet's place on the wall clock (epoch ms, start and end) and its bytes. */
function placed(batch: AudioBatch): Array<{ from: number; to: number; hex: string }> {
  const data = Buffer.from(batch.data, 'base64');
  let offset = 0;
  return batch.sizes.map((size, i) => {
    const hex = data.subarray(offset, (offset += size)).toString('hex');
    const from = batch.epochMs + batch.timestampsUs[i] / 1000;
    return { from, to: from + batch.durationsUs[i] / 1000, hex };
  });
}

/** A slice with other bytes in it. */
const withBytes = (slice: RecordingSlice, bytes: Buffer): RecordingSlice => ({
  ...slice,
  data: bytes.toString('base64'),
});

/** Deterministic noise: a mangled slice that does not change from run to run. */
function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const MANGLINGS: Array<{ name: string; detail: RegExp; slices: (all: RecordingSlice[]) => RecordingSlice[] }> = [
  {
    name: 'random bytes',
    detail: /among clusters|EBML integer|bytes|block/,
    slices: (all) => all.map((s, i) => (i === BAD ? withBytes(s, noise(Buffer.from(s.data, 'base64').length, 7)) : s)),
  },
  {
    name: 'zeros',
    detail: /EBML integer/,
    slices: (all) =>
      all.map((s, i) => (i === BAD ? withBytes(s, Buffer.alloc(Buffer.from(s.data, 'base64').length)) : s)),
  },
  {
    name: 'its first block of a track the stream never declared',
    detail: /track 2, which the stream did not declare/,
    slices: (all) =>
      all.map((s, i) => {
        if (i !== BAD) return s;
        const bytes = Buffer.from(s.data, 'base64');
        // The cluster's first SimpleBlock (0xA3, a one-byte size, then track 1 as 0x81).
        const block = bytes.findIndex((b, at) => b === 0xa3 && bytes[at + 2] === 0x81);
        expect(block).to.be.greaterThan(0);
        bytes[block + 2] = 0x82;
        return withBytes(s, bytes);
      }),
  },
  {
    name: 'cut in half (the rest never came)',
    detail: /among clusters|EBML integer|bytes|block/,
    slices: (all) =>
      all.map((s, i) => {
        if (i !== BAD) return s;
        const bytes = Buffer.from(s.data, 'base64');
        return withBytes(s, bytes.subarray(0, Math.floor(bytes.length / 2)));
      }),
  },
  {
    name: 'never came',
    detail: /slices 2 to 2 of the page's recording never came/,
    slices: (all) => all.filter((_, i) => i !== BAD),
  },
];

describe('recording: a bad slice of the page recording skipped, the rest read (headless Chromium)', function () {
  this.timeout(60_000);
  const browser = chromiumPerSuite();
  let recorded: Recorded;
  let clean: Taken;

  before(async () => {
    recorded = await recordTones(browser(), {
      mimeType: 'audio/webm;codecs=opus',
      seconds: 6,
      sliceMs: 1000,
      tones: [
        { fromMs: 300, toMs: 900 },
        { fromMs: 3300, toMs: 4300 },
      ],
    });
    expect(recorded.slices.length, 'a slice a second').to.be.within(6, 8);
    clean = takeEach(recorded.slices);
    expect(clean.skips, 'a clean stream skips nothing').to.deep.equal([]);
    expect(clean.batches.every((b) => b !== null)).to.equal(true);
  });

  for (const mangling of MANGLINGS) {
    it(`a slice in the middle of ${mangling.name}: the slices after it read where they were heard, the span lost reported once`, () => {
      const slices = mangling.slices(recorded.slices);
      const taken = takeEach(slices);
      const all = (t: Taken) => t.batches.flatMap((b) => (b ? placed(b) : []));
      const cleanPackets = all(clean);
      const read = all(taken);
      // What is read is the clean reading less one run of packets: those of the bad slice, and the one
      // whose bytes the cut shared with the next slice (MediaRecorder cuts its slices anywhere).
      // (Silence packets are all alike: where the run begins is counted, not looked for.)
      const lostFrom = taken.batches
        .filter((_, i) => slices[i].seq <= BAD)
        .reduce((n, b) => n + (b ? b.sizes.length : 0), 0);
      const lost = cleanPackets.length - read.length;
      expect(lostFrom, 'the packets before the bad slice').to.be.within(1, cleanPackets.length);
      expect(lost, 'the packets lost').to.be.within(1, placed(clean.batches[BAD]!).length + 1);
      expect(
        read.map((p) => p.hex),
        'every packet after',
      ).to.deep.equal([...cleanPackets.slice(0, lostFrom), ...cleanPackets.slice(lostFrom + lost)].map((p) => p.hex));
      expect(lostFrom + lost, 'the slices after the bad one read').to.be.lessThan(
        cleanPackets.length - placed(clean.batches.at(-1)!).length - placed(clean.batches.at(-2)!).length,
      );
      // Each where it was heard: where a clean reading places it.
      read.forEach((p, i) => {
        const same = cleanPackets[i < lostFrom ? i : i + lost];
        expect(p.from, `packet ${i}`).to.be.closeTo(same.from, PLACEMENT_MS);
      });

      expect(taken.skips, 'one report').to.have.length(1);
      const [skip] = taken.skips;
      expect(skip.detail).to.match(mangling.detail);
      expect(skip.slices).to.equal(1);
      // From the end of the audio read before to the start of the audio read after, as a clean reading places them.
      expect(skip.fromEpochMs).to.be.closeTo(cleanPackets[lostFrom - 1].to, PLACEMENT_MS);
      expect(skip.toEpochMs).to.be.closeTo(cleanPackets[lostFrom + lost].from, PLACEMENT_MS);
      expect(skip.toEpochMs - skip.fromEpochMs, 'at most about a slice').to.be.within(50, 1500);

      // The file: silence where the slice was, the tone after it where it was played.
      const timeline = new RecordingTimeline(recorded.startCalledAt, 3);
      const batches = taken.batches.filter((b): b is AudioBatch => b !== null);
      const audio = decodeAudio(Buffer.concat([timeline.headers(), ...batches.map((b) => timeline.add(b).pages)]));
      const at = (epochMs: number) => epochMs - recorded.startCalledAt;
      expect(audio.rms(at(skip.fromEpochMs) + 50, at(skip.toEpochMs) - 50), 'the span lost').to.be.lessThan(
        SILENCE_CEILING,
      );
      expect(audio.rms(300 + 100, 900 - 100), 'the tone before').to.be.greaterThan(TONE_FLOOR);
      expect(audio.rms(3300 + 100, 4300 - 100), 'the tone after, where it was played').to.be.greaterThan(TONE_FLOOR);
      expect(audio.rms(4300 + 150, 5500), 'silence after').to.be.lessThan(SILENCE_CEILING);
    });
  }

  it('a burst of bad slices is one report, and one that goes on is reported every 10 s, each where the last ended', () => {
    const [first, second] = recorded.slices;
    const { skips: one } = takeEach([
      first,
      second,
      ...[2, 3, 4].map((seq) => ({ ...withBytes(second, noise(250, seq)), seq, at: second.at + (seq - 1) * 1000 })),
      ...recorded.slices.slice(5),
    ]);
    expect(one.map((s) => s.slices)).to.deep.equal([3]);

    const bad = Array.from({ length: 25 }, (_, i) => ({
      ...withBytes(second, noise(250, i + 2)),
      seq: i + 2,
      at: second.at + (i + 1) * 1000,
    }));
    const { skips } = takeEach([first, second, ...bad]);
    expect(skips.length, 'at 10 s, at 20 s, and at the end').to.equal(3);
    expect(
      skips.reduce((n, s) => n + s.slices, 0),
      'every bad slice counted',
    ).to.equal(25);
    skips.slice(1).forEach((s, i) => expect(s.fromEpochMs).to.equal(skips[i].toEpochMs));
    expect(skips.at(-1)!.toEpochMs).to.equal(bad.at(-1)!.at);
  });
});
