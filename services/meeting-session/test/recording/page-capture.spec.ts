/**
 * The page's recording end to end inside one headless Chromium page, without a platform: a tone
 * goes from one RTCPeerConnection to another in the page (a real WebRTC path, a remote track at a
 * receiver, as the platforms deliver it), the driver's PageAudio installs the capture script and
 * its binding, MediaRecorder encodes the mix, and the worker's side demuxes the slices into
 * batches. The batches must hold the tone where it was played on the wall clock and silence
 * around it, reach the moment capture stopped (stop() hands over the recorder's last slice), and
 * a browser without MediaRecorder must report that it cannot record.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';
import { decodeAudio, type DecodedAudio } from '../../../../test/support/audio.js';
import { eventually, sleep } from '../../../../test/support/wait.js';
import { PageAudio } from '../../src/drivers/page-audio.js';
import type { AudioBatch } from '../../src/recording/page-capture.js';
import { RecordingTimeline } from '../../src/recording/timeline.js';
import { chromiumPerSuite } from './media-recorder.js';

const TONE_FLOOR = 2000;
const SILENCE_CEILING = 60;
/** A local WebRTC path delays the sound by its jitter buffer: tens of ms, more on a busy machine. */
const PATH_MS = 250;

class Heard {
  readonly batches: AudioBatch[] = [];
  readonly failures: string[] = [];
  audio(batch: AudioBatch): void {
    this.batches.push(batch);
  }
  audioFailed(detail: string): void {
    this.failures.push(detail);
  }
  pcm(): void {}
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

async function openLoopback(
  browser: Browser,
  before?: string,
): Promise<{ page: Page; heard: Heard; audio: PageAudio }> {
  const page = await browser.newPage();
  if (before) await page.evaluateOnNewDocument(before);
  const heard = new Heard();
  const audio = new PageAudio({ recordAudio: true }, () => heard);
  await audio.install(page, () => false);
  await page.goto(`data:text/html,${encodeURIComponent(LOOPBACK)}`);
  return { page, heard, audio };
}

/** The file the recorder would write from these batches, its timeline from `startedAt` (epoch ms), decoded. */
function fileOf(batches: AudioBatch[], startedAt: number): DecodedAudio {
  const timeline = new RecordingTimeline(startedAt, 7);
  return decodeAudio(Buffer.concat([timeline.headers(), ...batches.map((b) => timeline.add(b).pages)]));
}

describe('recording: the page capture script with MediaRecorder (headless Chromium, a loopback WebRTC track)', function () {
  this.timeout(60_000);
  const browser = chromiumPerSuite();

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
});
