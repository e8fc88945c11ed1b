import { expect } from 'chai';
import { joined, silence, spokenPcm, spokenSeconds } from '../../../../test/support/speech-engine/index.js';
import { VoiceActivity, MAX_MS, PAUSE_MS, type Utterance } from '../../src/transcription/voice-activity.js';

const RATE = 16_000;
const CHUNK = RATE / 10;

/**
 * Feeds `pcm` as the page does, 100 ms chunks back to back on the audio clock from `startMs`, each
 * placed on the wall clock `jitterMs(i)` off (a message handled late, a clock drifting); the
 * utterances that ended.
 */
function cut(pcm: Int16Array, startMs = 1_000_000, jitterMs = (_i: number) => 0): { ended: Utterance[] } {
  const ended: Utterance[] = [];
  const vad = new VoiceActivity('t1', RATE, { started() {}, ended: (u) => ended.push(u) });
  for (let at = 0, i = 0; at < pcm.length; at += CHUNK, i++) {
    const chunk = pcm.slice(at, at + CHUNK);
    vad.push(chunk, 5_000 + at, startMs + ((at + chunk.length) * 1000) / RATE + jitterMs(i));
  }
  return { ended };
}

describe('voice activity (espeak-ng speech)', function () {
  this.timeout(30_000);
  const first = 'the budget review moves to thursday';
  const second = 'please send the slides before noon';

  it('cuts two sentences apart at a pause, each with its own time', async () => {
    const a = await spokenPcm(first);
    const b = await spokenPcm(second);
    const { ended } = cut(joined(silence(1), a, silence(1.2), b, silence(1)).pcm);
    expect(ended).to.have.length(2);
    const aSeconds = await spokenSeconds(first);
    // The first speech is about a second in; the pre-roll and the onset move it by a few frames.
    expect(ended[0].speechFromMs - 1_000_000).to.be.within(900, 1200);
    expect((ended[0].speechToMs - ended[0].speechFromMs) / 1000).to.be.within(aSeconds - 0.4, aSeconds + 0.1);
    expect(ended[1].startMs).to.be.greaterThan(ended[0].endMs);
    // An utterance's audio holds its speech and the pause that ended it, no more.
    const seconds = ended[0].samples().length / RATE;
    expect(seconds).to.be.within(aSeconds, aSeconds + (PAUSE_MS + 400) / 1000);
  });

  it('keeps a sentence whole across the short gaps between its words', async () => {
    const { ended } = cut(joined(silence(0.5), await spokenPcm(`${first} and ${second}`), silence(1)).pcm);
    expect(ended).to.have.length(1);
  });

  it('keeps a sentence whole however late its chunks are placed on the wall clock', async () => {
    const speech = joined(silence(0.5), await spokenPcm(`${first} and ${second}`), silence(1)).pcm;
    // Up to 400 ms late, and a clock 3% slow: the samples still follow each other.
    const { ended } = cut(speech, 1_000_000, (i) => (i % 3) * 200 - i * 6);
    expect(ended).to.have.length(1);
  });

  it('hears nothing in silence and in a click', () => {
    const click = silence(2);
    click.pcm.fill(20_000, 16_000, 16_016);
    expect(cut(click.pcm).ended).to.have.length(0);
  });

  it('ends an utterance at MAX_MS however long the talk goes on', () => {
    const tone = new Int16Array(RATE * 40).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
    const { ended } = cut(tone);
    expect(ended.length).to.be.greaterThan(0);
    expect(ended[0].endMs - ended[0].startMs).to.equal(MAX_MS);
  });

  it('ends the utterance under way when the track goes quiet (a gap between chunks) or closes', async () => {
    const speech = (await spokenPcm(first)).pcm;
    const ended: Utterance[] = [];
    const vad = new VoiceActivity('t1', RATE, { started() {}, ended: (u) => ended.push(u) });
    vad.push(speech.slice(0, RATE), 0, 10_000);
    expect(vad.open).to.not.equal(null);
    // The next chunk does not follow on the audio clock: the track was unplugged in between.
    vad.push(speech.slice(RATE, RATE + CHUNK), RATE + 5 * RATE, 15_200);
    expect(ended).to.have.length(1);
    vad.close();
    expect(vad.open).to.equal(null);
  });
});
