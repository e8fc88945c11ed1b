/**
 * Every utterance gets its final (audio-transcriber.ts), however its track stops: the page saying
 * the track went quiet (muted, ended: a platform that stops sending the moment the speaker stops),
 * the track simply delivering nothing more, or the meeting over for the bot (`finish`). The
 * speech is espeak-ng's, fed in the page's 100 ms chunks with no pause after the last word, and
 * heard by the real test engine.
 */
import { expect } from 'chai';
import { joined, silence, speechEngineForSuite, spokenPcm } from '../../../../test/support/speech-engine/index.js';
import { eventually } from '../../../../test/support/wait.js';
import { PCM_SAMPLE_RATE } from '../../src/recording/page-capture.js';
import { AudioTranscriber, STALLED_MS, type HeardFinal } from '../../src/transcription/audio-transcriber.js';
import { SpeakerLearner } from '../../src/transcription/speaker-learner.js';
import { SpeechEngine } from '../../src/transcription/speech-engine.js';
import { speechEngineSettingsFromEnv } from '../../src/transcription/speech-engine-config.js';

const SENTENCE = 'We should ship the release on Friday.';
const CHUNK = PCM_SAMPLE_RATE / 10;

describe('audio transcription: the last words of a track that stops', function () {
  this.timeout(30_000);
  const engine = speechEngineForSuite({ sentences: [SENTENCE] });

  /** A transcriber fed the sentence, no pause after it, as chunks of track t1; its finals. */
  async function spokenUpToTheLastWord() {
    const finals: HeardFinal[] = [];
    const transcriber = new AudioTranscriber({
      engine: new SpeechEngine(speechEngineSettingsFromEnv(engine().env())!),
      language: 'en-US',
      budgetSeconds: 3600,
      speakers: new SpeakerLearner(),
      idPrefix: 'u',
      source: () => 'audio',
      holdBack: false,
      partial: () => {},
      final: async (final) => void finals.push(final),
      trouble: () => {},
    });
    const speech = await spokenPcm(SENTENCE);
    // The words end in the last chunk: less than the 150 ms that would start a pause.
    const pcm = joined(silence(0.5), speech, silence(0.05)).pcm;
    const startMs = Date.now() - (pcm.length * 1000) / PCM_SAMPLE_RATE;
    for (let at = 0; at < pcm.length; at += CHUNK) {
      const samples = pcm.slice(at, at + CHUNK);
      const endMs = startMs + ((at + samples.length) * 1000) / PCM_SAMPLE_RATE;
      const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
      transcriber.push({ track: 't1', frame: at, endMs, data });
    }
    return { transcriber, finals };
  }

  it('the page says the track went quiet: the utterance is final at once', async () => {
    const { transcriber, finals } = await spokenUpToTheLastWord();
    const quietAt = Date.now();
    transcriber.push({ track: 't1', quiet: true });
    await eventually(() => finals.length === 1, 'the final', 3_000);
    expect(Date.now() - quietAt, 'the engine alone between').to.be.lessThan(1_000);
    expect(finals[0].text).to.equal(SENTENCE);
    await transcriber.finish();
    expect(finals).to.have.length(1);
  });

  it('the track delivers nothing more, without a word from the page: final after STALLED_MS', async () => {
    const { transcriber, finals } = await spokenUpToTheLastWord();
    const lastAt = Date.now();
    await eventually(() => finals.length === 1, 'the final', STALLED_MS + 3_000);
    expect(Date.now() - lastAt).to.be.within(STALLED_MS - 100, STALLED_MS + 1_500);
    expect(finals[0].text).to.equal(SENTENCE);
    await transcriber.finish();
    expect(finals).to.have.length(1);
  });

  it('the meeting is over for the bot (left, ended) mid-track: finish() gives the final before it resolves', async () => {
    const { transcriber, finals } = await spokenUpToTheLastWord();
    expect(finals).to.have.length(0);
    await transcriber.finish();
    expect(finals.map((f) => f.text)).to.deep.equal([SENTENCE]);
  });
});
