/**
 * The test speech engine hears what is said: espeak-ng speech in the meeting simulator's voices,
 * decoded for real, over OpenAI's HTTP API; and it fails, slows down and refuses when told.
 */
import { execFile } from 'node:child_process';
import { expect } from 'chai';
import { eventually } from '../wait.js';
import { joined, PLAIN_VOICE, silence, spokenPcm, spokenSeconds, spokenWav, VOICES, wavOf } from './spoken.js';
import { speechEngineForSuite } from './fixture.js';
import { startSpeechEngine, type SpeechEngine } from './server.js';
import { toDecoderPcm } from './audio-input.js';

const SENTENCES = [
  'I think we should ship the release on Friday.',
  'Then I will update the release notes tomorrow.',
  'Can you send me the budget numbers by Monday?',
  'The customer asked for a follow-up call next week.',
  'Let us move the design review to Thursday afternoon.',
  'Good morning everyone, thanks for joining.',
];
const KEY = 'sk-speech-engine-spec';
/** en-us+f4 (VOICES[3], high and fast) is left out: pocketsphinx missed most of what it said. */
const HEARD_VOICES = [PLAIN_VOICE, VOICES[0], VOICES[1], VOICES[2]];

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function transcribe(
  engine: SpeechEngine,
  file: Buffer,
  fields: Record<string, string> = {},
  key: string | null = KEY,
): Promise<Answer> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(file)], { type: 'audio/wav' }), 'speech.wav');
  form.set('model', 'whisper-1');
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = await fetch(`${engine.url}/audio/transcriptions`, {
    method: 'POST',
    body: form,
    headers: key ? { Authorization: `Bearer ${key}` } : {},
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return { status: response.status, body: json ? JSON.parse(text) : text, headers: response.headers };
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z' -]/g, '')
    .trim();

describe('test speech engine (pocketsphinx behind the transcriptions API)', function () {
  this.timeout(60_000);
  const engine = speechEngineForSuite({ sentences: SENTENCES, apiKey: KEY });
  it('hears every sentence exactly in the simulator voices, as written', async () => {
    for (const voice of HEARD_VOICES) {
      for (const sentence of SENTENCES) {
        const answer = await transcribe(engine(), await spokenWav(sentence, voice));
        expect(answer.status).to.equal(200);
        expect(answer.body, `${voice.voice}: ${sentence}`).to.deep.equal({ text: sentence });
      }
    }
  });

  it('hears the first half of an utterance as the first words of its sentence', async () => {
    for (const voice of HEARD_VOICES) {
      for (const sentence of SENTENCES) {
        const half = await spokenPcm(sentence, voice, (await spokenSeconds(sentence, voice)) / 2);
        const { body } = await transcribe(engine(), wavOf(half));
        expect(body.text, `${voice.voice}: half of ${sentence}`).to.not.equal('');
        expect(`${wordsOf(sentence)} `.startsWith(`${wordsOf(body.text)} `), `${body.text} / ${sentence}`).to.equal(
          true,
        );
        expect(body.text).to.not.match(/[.,?!]$/);
      }
    }
  });

  it('hears sentences said in a row in one utterance, with their times (verbose_json)', async () => {
    const [first, second] = [SENTENCES[0], SENTENCES[4]];
    const audio = joined(await spokenPcm(first), silence(0.4), await spokenPcm(second, VOICES[1]));
    const { body } = await transcribe(engine(), wavOf(audio), { response_format: 'verbose_json' });
    expect(body.text).to.equal(`${first} ${second}`);
    expect(body.duration).to.be.closeTo(audio.pcm.length / 16_000, 0.01);
    expect(body.segments.map((s: { text: string }) => s.text)).to.deep.equal([first, second]);
    expect(body.segments[0].end).to.be.at.most(body.segments[1].start);
    expect(body.segments[1].end).to.be.at.most(body.duration);
  });

  it('hears nothing in silence or steady noise, and answers plain text when asked', async () => {
    expect((await transcribe(engine(), wavOf(silence(2)))).body).to.deep.equal({ text: '' });
    // White noise at about -35 dBFS: the grammar alone heard "I think" in it.
    const noise = silence(2);
    for (let i = 0; i < noise.pcm.length; i++) noise.pcm[i] = Math.round((Math.random() - 0.5) * 1300);
    expect((await transcribe(engine(), wavOf(noise))).body).to.deep.equal({ text: '' });
    const plain = await transcribe(engine(), await spokenWav(SENTENCES[2]), { response_format: 'text' });
    expect(plain.body).to.equal(SENTENCES[2]);
  });

  it('logs each request: model, language, audio seconds, key, status, decode time', async () => {
    await transcribe(engine(), await spokenWav(SENTENCES[1]), { language: 'en' });
    const [logged] = engine().requests;
    expect(logged).to.include({ model: 'whisper-1', language: 'en', authorization: `Bearer ${KEY}`, status: 200 });
    expect(logged.audioSeconds).to.be.closeTo(await spokenSeconds(SENTENCES[1]), 0.05);
    expect(logged.decodeMs).to.be.a('number').and.be.lessThan(5000);
    expect(logged.engineMs).to.be.at.least(logged.decodeMs!);
    expect(logged.text).to.equal(SENTENCES[1]);
  });

  it('refuses a missing or wrong key, a BCP 47 language and a missing model like OpenAI', async () => {
    const wav = await spokenWav(SENTENCES[0]);
    for (const key of [null, 'sk-wrong']) {
      const answer = await transcribe(engine(), wav, {}, key);
      expect(answer.status).to.equal(401);
      expect(answer.body.error).to.include({ type: 'invalid_request_error', code: 'invalid_api_key' });
    }
    const bcp47 = await transcribe(engine(), wav, { language: 'de-DE' });
    expect(bcp47.status).to.equal(400);
    expect(bcp47.body.error.message).to.match(/ISO-639-1/);
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(wav)]), 'speech.wav');
    const noModel = await fetch(`${engine().url}/audio/transcriptions`, {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(noModel.status).to.equal(400);
  });

  it('fails the next requests on purpose, with Retry-After', async () => {
    const wav = await spokenWav(SENTENCES[3]);
    engine().failNext(2, 429, { retryAfter: 3 });
    engine().failNext(1, 503);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await transcribe(engine(), wav));
    expect(answers.map((a) => a.status)).to.deep.equal([429, 429, 503, 200]);
    expect(answers[0].headers.get('retry-after')).to.equal('3');
    expect(answers[0].body.error.code).to.equal('rate_limit_exceeded');
    expect(answers[2].body.error.type).to.equal('server_error');
    expect(engine().requests.map((r) => r.status)).to.deep.equal([429, 429, 503, 200]);
  });

  it('answers slowly with delayMs, and not at all while hanging', async () => {
    const wav = await spokenWav(SENTENCES[5]);
    engine().delayMs = 400;
    const started = performance.now();
    expect((await transcribe(engine(), wav)).body.text).to.equal(SENTENCES[5]);
    expect(performance.now() - started).to.be.at.least(400);

    engine().reset();
    engine().hang = true;
    let answered = false;
    const held = transcribe(engine(), wav).then((a) => ((answered = true), a));
    await eventually(() => engine().requests.length === 2);
    await new Promise((wait) => setTimeout(wait, 300));
    expect(answered).to.equal(false);
    expect(engine().requests[1].status).to.equal(null);
    engine().reset();
    expect((await held).body.text).to.equal(SENTENCES[5]);
  });

  it('marks a request whose client went away as abandoned', async () => {
    engine().hang = true;
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(await spokenWav(SENTENCES[0]))]), 'speech.wav');
    form.set('model', 'whisper-1');
    const gone = fetch(`${engine().url}/audio/transcriptions`, {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${KEY}` },
      signal: AbortSignal.timeout(300),
    });
    await gone.then(
      () => expect.fail('a hanging engine answered'),
      () => undefined,
    );
    await eventually(() => engine().requests[0]?.abandoned === true);
  });

  it('decodes concurrent requests apart', async () => {
    const answers = await Promise.all(SENTENCES.map(async (s) => transcribe(engine(), await spokenWav(s, VOICES[0]))));
    expect(answers.map((a) => a.body.text)).to.deep.equal(SENTENCES);
  });

  it('reads a 16 kHz mono WAV itself, to the same samples ffmpeg gives for the same sound in FLAC', async () => {
    const wav = wavOf(await spokenPcm(SENTENCES[3], VOICES[1]));
    const flac = await new Promise<Buffer>((resolve, reject) =>
      execFile('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'flac', 'pipe:1'], { encoding: 'buffer' }, (e, out) =>
        e ? reject(e) : resolve(out),
      ).stdin!.end(wav),
    );
    const [own, viaFfmpeg] = await Promise.all([toDecoderPcm(wav), toDecoderPcm(flac)]);
    expect(own.length).to.equal(wav.length - 44);
    expect(own.equals(viaFfmpeg)).to.equal(true);
    expect((await transcribe(engine(), flac)).body).to.deep.equal({ text: SENTENCES[3] });
  });

  it('refuses sentences it has no pronunciation for, naming the words', async () => {
    let error: Error | null = null;
    await startSpeechEngine({ sentences: ['We ship 3 builds with Zorblax.'] }).catch((e: Error) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect(error!.message).to.include('"3"').and.include('"zorblax"');
  });
});
