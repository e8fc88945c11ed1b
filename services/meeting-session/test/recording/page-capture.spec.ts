/**
 * The page's recording end to end inside one headless Chromium page, without a platform: a tone
 * goes from one RTCPeerConnection to another in the page (a real WebRTC path, a remote track at a
 * receiver, as the platforms deliver it), the driver's PageAudio installs the capture script and
 * its binding, MediaRecorder encodes the mix, and the worker's side demuxes the slices into
 * batches. The batches must hold the tone where it was played on the wall clock and silence
 * around it, reach the moment capture stopped (stop() hands over the recorder's last slice), and
 * a browser without MediaRecorder must report that it cannot record. The recording and the
 * transcription's tap are parts of their own: one that cannot start leaves the other running, a
 * tap that could not load is tried again as tracks come, a recorder that fails is replaced.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { decodeAudio, type DecodedAudio } from '../../../../test/support/audio.js';
import { eventually, sleep } from '../../../../test/support/wait.js';
import { PageAudio } from '../../src/drivers/page-audio.js';
import type { AudioBatch, PcmChunk, PcmMessage, SkippedAudio } from '../../src/recording/page-capture.js';
import { RecordingTimeline } from '../../src/recording/timeline.js';
import { chromiumPerSuite } from './media-recorder.js';

const TONE_FLOOR = 2000;
const SILENCE_CEILING = 60;
/** A local WebRTC path delays the sound by its jitter buffer: tens of ms, more on a busy machine. */
const PATH_MS = 250;

class Heard {
  readonly batches: AudioBatch[] = [];
  readonly failures: string[] = [];
  readonly skips: SkippedAudio[] = [];
  readonly chunks: PcmChunk[] = [];
  /** The tap's failures (a string) and recoveries (null), in order. */
  readonly tap: Array<string | null> = [];
  audio(batch: AudioBatch): void {
    this.batches.push(batch);
  }
  audioFailed(detail: string): void {
    this.failures.push(detail);
  }
  audioSkipped(skip: SkippedAudio): void {
    this.skips.push(skip);
  }
  pcm(message: PcmMessage): void {
    if (!('quiet' in message)) this.chunks.push(message);
  }
  pcmFailed(detail: string | null): void {
    this.tap.push(detail);
  }
}

/** A blank page that plays a tone over a loopback peer connection on demand: `__tone(fromMs, toMs)` (epoch ms). */
const LOOPBACK = `<!doctype html><title>loopback</title><script>
  window.__connect = async function () {
    var ctx = new AudioContext({ sinkId: { type: 'none' } });
    var dest = ctx.createMediaStreamDestination();
    var tone = ctx.createOscillator();
    var gain = ctx.createGain();
    gain.gain.value = 0;
    tone.connect(gain).connect(dest);
    tone.start();
    await ctx.resume();
    var sender = new RTCPeerConnection();
    var receiver = new RTCPeerConnection();
    sender.onicecandidate = function (e) { if (e.candidate) receiver.addIceCandidate(e.candidate); };
    receiver.onicecandidate = function (e) { if (e.candidate) sender.addIceCandidate(e.candidate); };
    receiver.ontrack = function (e) {
      var element = new Audio();
      element.srcObject = e.streams[0];
      element.play().catch(function () {});
    };
    sender.addTrack(dest.stream.getAudioTracks()[0], dest.stream);
    await sender.setLocalDescription(await sender.createOffer());
    await receiver.setRemoteDescription(sender.localDescription);
    await receiver.setLocalDescription(await receiver.createAnswer());
    await sender.setRemoteDescription(receiver.localDescription);
    window.__tone = function (fromMs, toMs) {
      var now = Date.now();
      gain.gain.setValueAtTime(0.3, ctx.currentTime + (fromMs - now) / 1000);
      gain.gain.setValueAtTime(0, ctx.currentTime + (toMs - now) / 1000);
    };
  };
</script>`;

/** The loopback page's address, served for the suite. */
let loopbackUrl = '';

function serveLoopback(): void {
  let server: Server;
  before(async () => {
    server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(LOOPBACK));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    loopbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
}

async function openLoopback(
  browser: Browser,
  before?: string,
  target: { recordAudio?: boolean; transcribeAudio?: boolean } = { recordAudio: true },
): Promise<{ page: Page; heard: Heard; audio: PageAudio }> {
  const page = await browser.newPage();
  if (before) await page.evaluateOnNewDocument(before);
  const heard = new Heard();
  const audio = new PageAudio(target, () => heard);
  await audio.install(page, () => false);
  // Served over http from 127.0.0.1, a secure context as the platforms' https pages are (AudioWorklet needs one).
  await page.goto(loopbackUrl);
  return { page, heard, audio };
}

/** The loudest of the tap's chunks (RMS of Int16 samples) that end between two instants (epoch ms). */
function pcmLevel(chunks: PcmChunk[], fromMs: number, toMs: number): number {
  const levels = chunks
    .filter((c) => c.endMs >= fromMs && c.endMs <= toMs)
    .map((c) => {
      const bytes = Buffer.from(c.data, 'base64');
      const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
      return Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
    });
  return Math.max(0, ...levels);
}

/** Plays the tone 1.5 s from now for a second, captures 2 s after it, stops: when the tone was played. */
async function playTone(page: Page, audio: PageAudio): Promise<{ toneFrom: number; toneTo: number }> {
  const toneFrom = Date.now() + 1500;
  const toneTo = toneFrom + 1000;
  await page.evaluate(`window.__tone(${toneFrom}, ${toneTo})`);
  await sleep(4500);
  await audio.stop(page);
  return { toneFrom, toneTo };
}

/** The file the recorder would write from these batches, its timeline from `startedAt` (epoch ms), decoded. */
function fileOf(batches: AudioBatch[], startedAt: number): DecodedAudio {
  const timeline = new RecordingTimeline(startedAt, 7);
  return decodeAudio(Buffer.concat([timeline.headers(), ...batches.map((b) => timeline.add(b).pages)]));
}

describe('recording: the page capture script with MediaRecorder (headless Chromium, a loopback WebRTC track)', function () {
  this.timeout(60_000);
  const browser = chromiumPerSuite();
  serveLoopback();

  it('the tone where it was played on the wall clock, silence around it, up to the moment capture stopped', async () => {
    const { page, heard, audio } = await openLoopback(browser());
    try {
      await page.evaluate('window.__connect()');
      const startedAt = Date.now();
      await audio.start(page);
      const toneFrom = Date.now() + 1500;
      const toneTo = toneFrom + 1000;
      await page.evaluate(`window.__tone(${toneFrom}, ${toneTo})`);
      await sleep(4000);
      const stoppedAt = Date.now();
      await audio.stop(page);
      await eventually(() => heard.batches.length >= 4, 'a batch a second', 5_000);
      expect(heard.failures).to.deep.equal([]);
      // Both connections' receivers are taken (the sender's hears nothing, so it costs nothing).
      expect(Math.max(...heard.batches.map((b) => b.tracks)), 'the remote tracks captured').to.equal(2);

      const last = heard.batches.at(-1)!;
      const endsAt = last.epochMs + (last.timestampsUs.at(-1)! + last.durationsUs.at(-1)!) / 1000;
      expect(endsAt, 'the last slice handed over at stop').to.be.within(stoppedAt - 300, stoppedAt + 300);

      const decoded = fileOf(heard.batches, startedAt);
      expect(decoded.seconds * 1000, 'the timeline from the start to the stop').to.be.within(
        stoppedAt - startedAt - 300,
        stoppedAt - startedAt + 300,
      );
      const at = (epochMs: number) => epochMs - startedAt;
      expect(decoded.rms(at(toneFrom) + PATH_MS, at(toneTo) - 100), 'the tone').to.be.greaterThan(TONE_FLOOR);
      expect(decoded.rms(at(toneFrom) - 1000, at(toneFrom) - 100), 'silence before').to.be.lessThan(SILENCE_CEILING);
      expect(decoded.rms(at(toneTo) + PATH_MS + 100, at(toneTo) + 1200), 'silence after').to.be.lessThan(
        SILENCE_CEILING,
      );
    } finally {
      await page.close();
    }
  });

  it('a browser without MediaRecorder reports that the page cannot record', async () => {
    const { page, heard, audio } = await openLoopback(browser(), 'delete window.MediaRecorder;');
    try {
      await page.evaluate('window.__connect()');
      await audio.start(page);
      expect(heard.failures).to.deep.equal(['this browser has no MediaRecorder for audio/webm;codecs=opus']);
      await audio.stop(page);
      expect(heard.batches).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
  const both = { recordAudio: true, transcribeAudio: true };

  /** The recording holds the tone where it was played (batches from `startedAt`). */
  function expectRecordedTone(heard: Heard, startedAt: number, tone: { toneFrom: number; toneTo: number }): void {
    expect(heard.batches.length, 'a batch a second').to.be.greaterThan(3);
    const decoded = fileOf(heard.batches, startedAt);
    const at = (epochMs: number) => epochMs - startedAt;
    expect(decoded.rms(at(tone.toneFrom) + PATH_MS, at(tone.toneTo) - 100), 'the tone recorded').to.be.greaterThan(
      TONE_FLOOR,
    );
    expect(decoded.rms(at(tone.toneFrom) - 1000, at(tone.toneFrom) - 100), 'silence before').to.be.lessThan(
      SILENCE_CEILING,
    );
  }

  /** The tap heard the tone where it was played, and silence before. */
  function expectTappedTone(heard: Heard, tone: { toneFrom: number; toneTo: number }): void {
    expect(pcmLevel(heard.chunks, tone.toneFrom + PATH_MS + 100, tone.toneTo), 'the tone tapped').to.be.greaterThan(
      TONE_FLOOR,
    );
    expect(pcmLevel(heard.chunks, tone.toneFrom - 1000, tone.toneFrom - 100), 'silence before').to.be.lessThan(
      SILENCE_CEILING,
    );
  }

  it('a tap that cannot start leaves the recording recording', async () => {
    const { page, heard, audio } = await openLoopback(browser(), 'delete window.AudioWorkletNode;', both);
    try {
      await page.evaluate('window.__connect()');
      const startedAt = Date.now();
      await audio.start(page);
      const tone = await playTone(page, audio);
      await eventually(() => heard.tap.length > 0, "the tap's failure", 5_000);
      expect(heard.tap).to.deep.equal(['this browser has no AudioWorklet']);
      expect(heard.failures, 'the recording did not fail').to.deep.equal([]);
      expect(heard.chunks).to.deep.equal([]);
      expectRecordedTone(heard, startedAt, tone);
    } finally {
      await page.close();
    }
  });

  it('a page that cannot record still taps each track for transcription', async () => {
    const { page, heard, audio } = await openLoopback(browser(), 'delete window.MediaRecorder;', both);
    try {
      await page.evaluate('window.__connect()');
      await audio.start(page);
      expect(heard.failures).to.deep.equal(['this browser has no MediaRecorder for audio/webm;codecs=opus']);
      const tone = await playTone(page, audio);
      expect(heard.tap, 'the tap did not fail').to.deep.equal([]);
      expect(heard.batches).to.deep.equal([]);
      expectTappedTone(heard, tone);
    } finally {
      await page.close();
    }
  });

  it('a tap that could not load is tried again when tracks come, the recording going on meanwhile', async () => {
    // The first load of the tap's module is refused (as a renderer short of memory may), later ones are not.
    const refuseOnce = `(function () {
      var proto = AudioWorklet.prototype, add = proto.addModule, refused = false;
      proto.addModule = function () {
        if (refused) return add.apply(this, arguments);
        refused = true;
        return Promise.reject(new Error('refused for the test'));
      };
    })();`;
    const { page, heard, audio } = await openLoopback(browser(), refuseOnce, both);
    try {
      const startedAt = Date.now();
      await audio.start(page);
      await eventually(() => heard.tap.length > 0, "the tap's failure", 5_000);
      expect(heard.tap).to.deep.equal(['the audio tap could not be loaded: Error: refused for the test']);
      // Not tried again at every track: TAP_RETRY_MS after the failure, the next track brings it back.
      await sleep(2500);
      await page.evaluate('window.__connect()');
      await eventually(() => heard.tap.length > 1, 'the tap running', 5_000);
      expect(heard.tap.slice(1)).to.deep.equal([null]);
      const tone = await playTone(page, audio);
      expectTappedTone(heard, tone);
      expect(heard.failures, 'the recording did not fail').to.deep.equal([]);
      expectRecordedTone(heard, startedAt, tone);
    } finally {
      await page.close();
    }
  });

  it('a recorder that fails mid-recording is replaced: the recording goes on, the span between reported', async () => {
    // The recorders' inputs, so that the test can make the first one fail as Chromium does (a track added to it).
    const keepInputs = `(function () {
      var Real = window.MediaRecorder;
      window.__recorderInputs = [];
      window.MediaRecorder = function (stream, options) {
        window.__recorderInputs.push(stream);
        return new Real(stream, options);
      };
      window.MediaRecorder.isTypeSupported = Real.isTypeSupported.bind(Real);
    })();`;
    const { page, heard, audio } = await openLoopback(browser(), keepInputs);
    try {
      await page.evaluate('window.__connect()');
      const startedAt = Date.now();
      await audio.start(page);
      await sleep(2000);
      const failedAt = Date.now();
      await page.evaluate(`(function () {
        var other = new AudioContext().createMediaStreamDestination().stream.getAudioTracks()[0];
        window.__recorderInputs[0].addTrack(other);
      })()`);
      await eventually(() => heard.skips.length > 0, 'the span between the recorders', 5_000);
      expect(await page.evaluate('window.__recorderInputs.length'), 'a second recorder').to.equal(2);
      const [skip] = heard.skips;
      expect(skip.detail).to.match(/the audio encoder failed \(a new one took over\): InvalidModificationError/);
      expect(skip.fromEpochMs).to.be.within(failedAt - 1100, failedAt + 300);
      expect(skip.toEpochMs - skip.fromEpochMs, 'the new recorder starts at once').to.be.within(0, 1000);
      const tone = await playTone(page, audio);
      expect(heard.failures).to.deep.equal([]);
      expect(heard.skips).to.have.length(1);
      expectRecordedTone(heard, startedAt, tone);
    } finally {
      await page.close();
    }
  });
});
