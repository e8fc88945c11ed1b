/**
 * Transcription from audio against a real engine (test/support/speech-engine) that turns slow:
 * every answer 20 s late while the meeting's speech keeps coming at three times real time. What
 * the meeting holds for the engine stays under its bound; the speech past it is dropped, said at
 * once (one warning for the burst, its seconds on the metric) and marked untranscribed in its
 * place; every utterance still gets one final, in order; once the engine is quick again the
 * warning clears and the speech is transcribed. And a retry never makes a second final.
 */
import { expect } from 'chai';
import client from 'prom-client';
import { speechEngineForSuite } from '../../../../test/support/speech-engine/index.js';
import { eventually } from '../../../../test/support/wait.js';
import { AudioTranscriber, type HeardFinal } from '../../src/transcription/audio-transcriber.js';
import { heldAudio } from '../../src/transcription/held-audio.js';
import { SpeakerLearner } from '../../src/transcription/speaker-learner.js';
import { SpeechEngine } from '../../src/transcription/speech-engine.js';
import { speechEngineSettingsFromEnv } from '../../src/transcription/speech-engine-config.js';
import { heldAudioMetrics } from '../../src/transcription/transcription-metrics.js';
import { saying, Track } from './meeting-audio.js';

const SENTENCES = [
  'We should ship the release on Friday.',
  'Please send the slides before noon.',
  'The budget review moves to Thursday.',
];
const PCM_BYTES_PER_SECOND = 32_000;

interface Trouble {
  raised: boolean;
  detail: string;
  at: number;
}

describe('audio transcription under a slow engine', function () {
  this.timeout(180_000);
  const engine = speechEngineForSuite({ sentences: SENTENCES });

  function transcriberFor(
    speech: SpeechEngine,
    meeting: string,
    more: { clock?: () => number; maxUnemitted?: number; stored?: () => Promise<void> } = {},
  ) {
    const finals: Array<HeardFinal & { at: number }> = [];
    const troubles: Trouble[] = [];
    const transcriber = new AudioTranscriber({
      engine: speech,
      language: 'en-US',
      budgetSeconds: 3600,
      speakers: new SpeakerLearner(),
      idPrefix: meeting,
      source: () => 'audio',
      holdBack: false,
      partial: () => {},
      final: async (final) => {
        await more.stored?.();
        finals.push({ ...final, at: Date.now() });
      },
      trouble: (trouble, raised, detail) => {
        expect(trouble).to.equal('transcription_unavailable');
        troubles.push({ raised, detail, at: Date.now() });
      },
      clock: more.clock,
      maxUnemitted: more.maxUnemitted,
    });
    return { transcriber, finals, troubles };
  }

  async function droppedSeconds(registry: client.Registry, reason = 'meeting_queue_full'): Promise<number> {
    const metric = await registry.getSingleMetric('meeting_transcription_dropped_audio_seconds_total')!.get();
    return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
  }

  it("holds no more than the meeting's bound for an engine 20 s late, says what it drops, and recovers", async function () {
    const BOUND_SECONDS = 8;
    const bound = BOUND_SECONDS * PCM_BYTES_PER_SECOND;
    const speech = new SpeechEngine({
      ...speechEngineSettingsFromEnv({ ...engine().env(), STT_TIMEOUT_MS: '60000' })!,
      meetingMaxQueuedSeconds: BOUND_SECONDS,
    });
    const registry = new client.Registry();
    heldAudioMetrics([registry]);
    await droppedSeconds(registry); // hands over what earlier tests dropped
    const before = {
      waiting: heldAudio.of('waiting'),
      sending: heldAudio.of('sending'),
      unemitted: heldAudio.of('unemitted'),
    };
    const { transcriber, finals, troubles } = transcriberFor(speech, 'slow');
    const track = new Track(transcriber);

    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, speech.heldFor('slow').bytes)), 20);
    const slowPart = await saying([...SENTENCES, ...SENTENCES, ...SENTENCES, ...SENTENCES, ...SENTENCES]);
    // The answers already on their way stay late: the engine is slow for about 35 s in all.
    const quickPart = await saying([...SENTENCES, ...SENTENCES, ...SENTENCES]);
    const started = Date.now();
    try {
      engine().delayMs = 20_000;
      await track.feed(slowPart.audio, 3);
      engine().delayMs = 0;
      await track.feed(quickPart.audio, 1);
      await eventually(() => troubles.length === 2, 30_000);
    } finally {
      clearInterval(sampler);
      engine().delayMs = 0;
    }
    await transcriber.finish();

    // Bounded: the meeting's finals never held more than the bound, and did reach it.
    expect(most)
      .to.be.at.most(bound)
      .and.above(bound / 2);
    // Said at once: one warning for the burst, raised before the engine answered anything, cleared after.
    const [raised, cleared] = troubles;
    expect(raised.raised).to.equal(true);
    expect(raised.detail).to.match(
      /behind: \d+ s of this meeting's speech .*STT_MEETING_MAX_QUEUED_SECONDS.*untranscribed/,
    );
    expect(raised.at - started).to.be.below(15_000);
    expect(raised.at).to.be.below(finals[0].at);
    expect(cleared.raised).to.equal(false);

    // Every utterance its one final, in order: words where the engine took it, a marker where it was dropped.
    const said = Array.from({ length: 8 }, () => SENTENCES).flat();
    expect(finals).to.have.length(said.length);
    finals.forEach((final, i) => {
      if (final.untranscribed)
        expect(final).to.deep.include({
          text: '',
          untranscribed: { ...final.untranscribed, reason: 'engine_unavailable' },
        });
      else expect(final.text).to.equal(said[i]);
    });
    const stamps = finals.map((f) => Date.parse(f.timestamp));
    expect(stamps).to.deep.equal([...stamps].sort((a, b) => a - b));
    const dropped = finals.filter((f) => f.untranscribed);
    expect(dropped.length).to.be.at.least(3);
    expect(finals.length - dropped.length).to.be.at.least(3);
    // The speech after the engine came back is transcribed.
    expect(finals.slice(-3).map((f) => f.text)).to.deep.equal(SENTENCES);
    expect(troubles).to.have.length(2);

    // The metric has the dropped speech: each marker's span, and its pre-roll and tail (under 0.5 s).
    const spans = dropped.reduce(
      (sum, f) => sum + (Date.parse(f.untranscribed!.until) - Date.parse(f.timestamp)) / 1000,
      0,
    );
    expect(await droppedSeconds(registry)).to.be.within(spans, spans + 0.5 * dropped.length);

    // All let go.
    expect(speech.heldFor('slow')).to.deep.equal({ bytes: 0, items: 0 });
    expect(speech.load).to.deep.equal({ inFlight: 0, waiting: 0, queuedBytes: 0 });
    expect(heldAudio.of('waiting')).to.deep.equal(before.waiting);
    expect(heldAudio.of('sending')).to.deep.equal(before.sending);
    expect(heldAudio.of('unemitted')).to.deep.equal(before.unemitted);
  });

  it('makes one final of an utterance whose first attempt the engine answers after the timeout', async () => {
    const speech = new SpeechEngine(speechEngineSettingsFromEnv({ ...engine().env(), STT_TIMEOUT_MS: '1500' })!);
    // A clock that stands still: no partial is due, so the engine's requests are the final's.
    const { transcriber, finals, troubles } = transcriberFor(speech, 'late', { clock: () => 0 });
    engine().answerLate(1, 4000);
    await new Track(transcriber).feed((await saying([SENTENCES[0]])).audio, Infinity);
    await eventually(() => finals.length === 1, 15_000);
    // The late answer has come (to nobody) and made nothing.
    await eventually(() => engine().requests[0]?.status !== null, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await transcriber.finish();

    expect(finals.map((f) => f.text)).to.deep.equal([SENTENCES[0]]);
    const [late, retried] = engine().requests;
    expect(engine().requests).to.have.length(2);
    expect(late).to.include({ text: SENTENCES[0], abandoned: true });
    expect(retried).to.include({ status: 200, abandoned: false });
    expect(late.idempotencyKey)
      .to.match(/^late_1\+\d+$/)
      .and.equal(retried.idempotencyKey);
    expect(troubles).to.deep.equal([]);
  });

  it('a transcript that takes no finals: past the backlog bound, the speech joins one marker, said at once', async () => {
    const registry = new client.Registry();
    heldAudioMetrics([registry]);
    const already = await droppedSeconds(registry, 'backlog_full');
    let store: () => void = () => {};
    const stuck = new Promise<void>((resolve) => (store = resolve));
    const speech = new SpeechEngine(speechEngineSettingsFromEnv(engine().env())!);
    const { transcriber, finals, troubles } = transcriberFor(speech, 'backlog', {
      clock: () => 0,
      maxUnemitted: 2,
      stored: () => stuck,
    });
    await new Track(transcriber).feed((await saying([...SENTENCES, ...SENTENCES])).audio, Infinity);
    await eventually(() => troubles.length === 1, 10_000);
    expect(troubles[0]).to.deep.include({ raised: true });
    expect(troubles[0].detail).to.match(/2 finals of the meeting wait to be stored.*untranscribed/);
    expect(finals).to.deep.equal([]);

    store();
    await transcriber.finish();
    expect(finals.map((f) => f.text)).to.deep.equal([SENTENCES[0], SENTENCES[1], '']);
    // One marker from the third sentence's start to the sixth's end.
    const marker = finals[2];
    expect(marker.untranscribed?.reason).to.equal('engine_unavailable');
    const spanned = (Date.parse(marker.untranscribed!.until) - Date.parse(marker.timestamp)) / 1000;
    expect(spanned).to.be.above(4 * 2);
    expect((await droppedSeconds(registry, 'backlog_full')) - already).to.be.within(4 * 1.5, spanned);
    expect(engine().requests).to.have.length(2);
  });
});
