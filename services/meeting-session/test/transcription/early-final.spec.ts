/**
 * The final sent early (audio-transcriber.ts): once voice activity says `paused`, an utterance's
 * final goes to the engine (the real test engine hearing espeak-ng speech), before the pause that
 * ends it is confirmed, and is the final when it does end there; speech coming back aborts it and
 * the utterance's words come whole in one final, with no warning.
 */
import { expect } from 'chai';
import { joined, silence, speechEngineForSuite, spokenPcm } from '../../../../test/support/speech-engine/index.js';
import { eventually } from '../../../../test/support/wait.js';
import { PCM_SAMPLE_RATE } from '../../src/recording/page-capture.js';
import { AudioTranscriber, type HeardFinal, type SpeechToText } from '../../src/transcription/audio-transcriber.js';
import { SpeakerLearner } from '../../src/transcription/speaker-learner.js';
import { SpeechEngine } from '../../src/transcription/speech-engine.js';
import { speechEngineSettingsFromEnv } from '../../src/transcription/speech-engine-config.js';
import { VoiceActivity } from '../../src/transcription/voice-activity.js';

const FIRST = 'We should ship the release on Friday.';
const SECOND = 'Please send the slides before noon.';
const CHUNK = PCM_SAMPLE_RATE / 10;

describe('audio transcription: the final sent at the pause', function () {
  this.timeout(30_000);
  const engine = speechEngineForSuite({ sentences: [FIRST, SECOND] });

  /**
   * Feeds `pcm` in the page's 100 ms chunks; `chunk` of each engine call and of the end of the
   * first utterance (voice activity run alongside on the same chunks) count chunks fed.
   */
  async function transcribe(pcm: Int16Array) {
    const client = new SpeechEngine(speechEngineSettingsFromEnv(engine().env())!);
    let fed = 0;
    let endedAt = -1;
    const calls: Array<{ chunk: number; priority: string }> = [];
    const counted: SpeechToText = {
      transcribe(audio, options) {
        calls.push({ chunk: fed, priority: options.priority });
        return client.transcribe(audio, options);
      },
    };
    const finals: HeardFinal[] = [];
    const troubles: string[] = [];
    const transcriber = new AudioTranscriber({
      engine: counted,
      language: 'en-US',
      budgetSeconds: 3600,
      speakers: new SpeakerLearner(),
      idPrefix: 'u',
      source: () => 'audio',
      holdBack: false,
      partial: () => {},
      final: async (final) => void finals.push(final),
      trouble: (trouble) => troubles.push(trouble),
      clock: () => 0, // never a partial due: the engine's calls are the finals'
    });
    const probe = new VoiceActivity('probe', PCM_SAMPLE_RATE, {
      started() {},
      ended: () => endedAt < 0 && (endedAt = fed),
    });
    for (let at = 0; at < pcm.length; at += CHUNK) {
      fed++;
      const samples = pcm.slice(at, at + CHUNK);
      const endMs = 1_000_000 + ((at + samples.length) * 1000) / PCM_SAMPLE_RATE;
      probe.push(samples, at, endMs);
      const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
      transcriber.push({ track: 't1', frame: at, endMs, data });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await transcriber.finish();
    return { calls, endedAt, finals, troubles };
  }

  it('sends the final when the pause begins, before it is confirmed, and sends it once', async () => {
    const { calls, endedAt, finals, troubles } = await transcribe(
      joined(silence(0.5), await spokenPcm(FIRST), silence(1)).pcm,
    );
    expect(finals.map((f) => f.text)).to.deep.equal([FIRST]);
    expect(calls).to.have.length(1);
    expect(calls[0].chunk).to.be.lessThan(endedAt);
    expect(engine().requests.map((r) => r.text)).to.deep.equal([FIRST]);
    expect(troubles).to.deep.equal([]);
  });

  it('speech back within the pause: the early final is aborted, the utterance comes whole in one final', async () => {
    const { calls, finals, troubles } = await transcribe(
      joined(silence(0.5), await spokenPcm(SECOND), silence(0.18), await spokenPcm(FIRST), silence(1)).pcm,
    );
    expect(finals.map((f) => f.text)).to.deep.equal([`${SECOND} ${FIRST}`]);
    expect(calls.map((c) => c.priority)).to.deep.equal(['final', 'final']);
    await eventually(() => engine().requests.every((r) => r.status !== null || r.abandoned));
    const answered = engine().requests.filter((r) => !r.abandoned);
    expect(answered.map((r) => r.text)).to.deep.equal([`${SECOND} ${FIRST}`]);
    expect(troubles).to.deep.equal([]);
  });
});
