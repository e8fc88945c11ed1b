/**
 * The speech engine client against a real engine (test/support/speech-engine: pocketsphinx behind
 * OpenAI's transcriptions API) hearing espeak-ng speech: what it sends, how it retries, how it
 * shares its slots between finals and partials, and that the key stays out of its errors.
 */
import { expect } from 'chai';
import { ConfigError } from '@notetaker/config';
import { speechEngineForSuite, spokenPcm, startSpeechEngine } from '../../../../test/support/speech-engine/index.js';
import { eventually } from '../../../../test/support/wait.js';
import {
  isoLanguage,
  SpeechEngine,
  SpeechEngineBusy,
  SpeechEngineError,
  SpeechEngineQueueFull,
} from '../../src/transcription/speech-engine.js';
import {
  speechEngineSettingsFromEnv,
  type SpeechEngineSettings,
} from '../../src/transcription/speech-engine-config.js';

const SENTENCES = ['We should ship the release on Friday.', 'Please send the slides before noon.'];
const KEY = 'sk-client-spec-0123456789abcdef';

async function rejection(promise: Promise<unknown>): Promise<SpeechEngineError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(SpeechEngineError);
  return error as SpeechEngineError;
}

describe('speech engine client', function () {
  this.timeout(30_000);
  const engine = speechEngineForSuite({ sentences: SENTENCES, apiKey: KEY });
  const settings = (env: Record<string, string> = {}): SpeechEngineSettings =>
    speechEngineSettingsFromEnv({ ...engine().env(), ...env })!;
  // Short waits between attempts, so retries are quick; Retry-After still sets the floor.
  const client = (env: Record<string, string> = {}) => new SpeechEngine(settings(env), { backoffMs: 20 });

  it('recognizes a sentence, sending WAV, model, key and the language as ISO-639-1', async () => {
    const result = await client().transcribe(await spokenPcm(SENTENCES[0]), { language: 'en-US', priority: 'final' });
    expect(result).to.include({ text: SENTENCES[0], attempts: 1 });
    expect(result.engineMs).to.be.greaterThan(0);
    const [sent] = engine().requests;
    expect(sent).to.include({
      model: 'whisper-1',
      language: 'en',
      responseFormat: 'json',
      authorization: `Bearer ${KEY}`,
    });
    expect(sent.audioSeconds).to.be.greaterThan(1.5);
    expect(result.engineMs).to.be.at.least(sent.engineMs!);
  });

  it('sends de for de-DE, and no language when the meeting has none', async () => {
    const audio = await spokenPcm(SENTENCES[1]);
    await client({ STT_MODEL: 'large-v3' }).transcribe(audio, { language: 'de-DE', priority: 'final' });
    await client().transcribe(audio, { language: null, priority: 'final' });
    expect(engine().requests.map((r) => [r.model, r.language])).to.deep.equal([
      ['large-v3', 'de'],
      ['whisper-1', null],
    ]);
    expect([isoLanguage('pt_BR'), isoLanguage('yue-HK'), isoLanguage('')]).to.deep.equal(['pt', null, null]);
  });

  it('retries a final after a 500', async () => {
    engine().failNext(1, 500);
    const result = await client().transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final' });
    expect(result).to.include({ text: SENTENCES[0], attempts: 2 });
    expect(engine().requests.map((r) => r.status)).to.deep.equal([500, 200]);
  });

  it('waits as long as a 429 says in Retry-After', async () => {
    engine().failNext(1, 429, { retryAfter: 1 });
    const result = await client().transcribe(await spokenPcm(SENTENCES[1]), { priority: 'final' });
    expect(result.attempts).to.equal(2);
    const [limited, retried] = engine().requests;
    expect(limited.status).to.equal(429);
    expect(retried.at - limited.at).to.be.at.least(1000);
  });

  it('gives up on an engine that never answers: unavailable after three timed-out attempts', async () => {
    engine().hang = true;
    const started = performance.now();
    const error = await rejection(
      client({ STT_TIMEOUT_MS: '300' }).transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final' }),
    );
    expect(error.kind).to.equal('unavailable');
    expect(error.message).to.match(/no answer within 300 ms.*3 attempts/);
    expect(performance.now() - started).to.be.at.least(900);
    await eventually(() => engine().requests.length === 3 && engine().requests.every((r) => r.abandoned));
  });

  it('never retries a partial', async () => {
    engine().failNext(1, 503);
    const error = await rejection(client().transcribe(await spokenPcm(SENTENCES[0]), { priority: 'partial' }));
    expect(error).to.include({ kind: 'unavailable', status: 503 });
    expect(engine().requests).to.have.length(1);
  });

  it('with one slot taken, drops a partial at once while a final waits its turn', async () => {
    const speech = new SpeechEngine(settings({ STT_CONCURRENCY: '1' }));
    const audio = await spokenPcm(SENTENCES[1]);
    engine().delayMs = 600;
    const first = speech.transcribe(audio, { priority: 'final' });
    await eventually(() => engine().requests.length === 1);
    const partial = speech.transcribe(audio, { priority: 'partial' });
    const queued = speech.transcribe(audio, { priority: 'final' });
    expect(await rejection(partial))
      .to.be.instanceOf(SpeechEngineBusy)
      .and.include({ kind: 'busy' });
    expect(speech.load).to.deep.include({ inFlight: 1, waiting: 1, queuedBytes: 2 * audio.pcm.byteLength });
    expect(engine().requests).to.have.length(1);

    const [a, b] = await Promise.all([first, queued]);
    expect([a.text, b.text]).to.deep.equal([SENTENCES[1], SENTENCES[1]]);
    const [one, two] = engine().requests;
    expect(two.at).to.be.at.least(one.at + one.engineMs!);
    expect(speech.load).to.deep.equal({ inFlight: 0, waiting: 0, queuedBytes: 0 });
  });

  it('keeps half the slots for finals: partials beyond them are dropped while finals still go', async () => {
    const speech = new SpeechEngine(settings({ STT_CONCURRENCY: '4' }));
    const audio = await spokenPcm(SENTENCES[0]);
    engine().delayMs = 600;
    const partials = [0, 1].map(() => speech.transcribe(audio, { priority: 'partial' }));
    await eventually(() => engine().requests.length === 2);
    expect(await rejection(speech.transcribe(audio, { priority: 'partial' }))).to.include({ kind: 'busy' });
    const finals = [0, 1].map(() => speech.transcribe(audio, { priority: 'final' }));
    expect(speech.load).to.deep.include({ inFlight: 4, waiting: 0 });
    await Promise.all([...partials, ...finals]);
  });

  it('lets a waiting final go when its caller aborts', async () => {
    const speech = new SpeechEngine(settings({ STT_CONCURRENCY: '1' }));
    const audio = await spokenPcm(SENTENCES[0]);
    engine().delayMs = 400;
    const first = speech.transcribe(audio, { priority: 'final' });
    const abort = new AbortController();
    const waiting = speech.transcribe(audio, { priority: 'final', signal: abort.signal });
    abort.abort(new Error('meeting ended'));
    await waiting.then(
      () => expect.fail('an aborted final was sent'),
      (e: Error) => expect(e.message).to.equal('meeting ended'),
    );
    expect(speech.load.waiting).to.equal(0);
    await first;
    expect(engine().requests).to.have.length(1);
  });

  it('is refused with a wrong key, without retrying and without the key in the message', async () => {
    const wrongKey = 'sk-wrong-key-that-must-not-leak-42';
    const error = await rejection(
      client({ STT_API_KEY: wrongKey }).transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final' }),
    );
    expect(error).to.include({ kind: 'refused', status: 401 });
    expect(error.message).to.include('401').and.not.include(wrongKey);
    expect(engine().requests.map((r) => r.authorization)).to.deep.equal([`Bearer ${wrongKey}`]);

    engine().failNext(3, 503);
    const unavailable = await rejection(client().transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final' }));
    expect(`${unavailable.message} ${unavailable.stack}`).to.not.include(KEY);
  });

  it('retries with the same Idempotency-Key, and a late answer to the timed-out attempt makes no second result', async () => {
    engine().answerLate(1, 2500);
    const speech = client({ STT_TIMEOUT_MS: '800' });
    const result = await speech.transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final', id: 'aud_x_1+2300' });
    expect(result).to.include({ text: SENTENCES[0], attempts: 2 });
    // The engine did the first attempt's work and answered it, to nobody.
    await eventually(() => engine().requests[0]?.status !== null, 5000);
    const [late, retried] = engine().requests;
    expect(late).to.include({ status: 200, text: SENTENCES[0], abandoned: true });
    expect(retried).to.include({ status: 200, abandoned: false, idempotencyKey: 'aud_x_1+2300' });
    expect(late.idempotencyKey).to.equal(retried.idempotencyKey);
    expect(late.fileSha256).to.equal(retried.fileSha256);

    // Without an id, one is made per request: the same on its attempts, another for the next request.
    engine().failNext(1, 503);
    await speech.transcribe(await spokenPcm(SENTENCES[1]), { priority: 'final' });
    await speech.transcribe(await spokenPcm(SENTENCES[1]), { priority: 'final' });
    const keys = engine()
      .requests.slice(2)
      .map((r) => r.idempotencyKey);
    expect(keys[0]).to.be.a('string').and.equal(keys[1]).and.not.equal(keys[2]);
  });

  it("bounds the finals it holds by a meeting's share and the worker's, refusing the rest unsent", async () => {
    const audio = await spokenPcm(SENTENCES[0]); // about 2.5 s
    const seconds = audio.pcm.length / audio.sampleRate;
    const speech = new SpeechEngine({
      ...settings({ STT_CONCURRENCY: '1' }),
      meetingMaxQueuedSeconds: 2.5 * seconds,
      maxQueuedSeconds: 3.5 * seconds,
    });
    engine().delayMs = 1500;
    const a = [0, 1].map(() => speech.transcribe(audio, { priority: 'final', meeting: 'a' }));
    const refused = await rejection(speech.transcribe(audio, { priority: 'final', meeting: 'a' }));
    expect(refused).to.be.instanceOf(SpeechEngineQueueFull).and.include({ kind: 'busy', bound: 'meeting_queue_full' });
    expect(refused.message).to.match(/behind: \d+ s of this meeting's speech .*STT_MEETING_MAX_QUEUED_SECONDS/);
    const b = speech.transcribe(audio, { priority: 'final', meeting: 'b' });
    const full = await rejection(speech.transcribe(audio, { priority: 'final', meeting: 'c' }));
    expect(full).to.include({ bound: 'worker_queue_full' });
    expect(speech.heldFor('a')).to.deep.equal({ bytes: 2 * audio.pcm.byteLength, items: 2 });
    expect(speech.load).to.deep.include({ queuedBytes: 3 * audio.pcm.byteLength });

    await Promise.all([...a, b]);
    expect(engine().requests).to.have.length(3);
    expect(speech.load).to.deep.equal({ inFlight: 0, waiting: 0, queuedBytes: 0 });
    expect(speech.heldFor('a')).to.deep.equal({ bytes: 0, items: 0 });
  });

  it('keeps the credentials of a URL out of its errors', async () => {
    // Refused at start (below); here an engine built around the check, as fetch's error names the URL whole.
    const speech = new SpeechEngine(
      { ...settings(), baseUrl: 'http://stt-user:hunter2-pass@127.0.0.1:9/v1' },
      { backoffMs: 5 },
    );
    const error = await rejection(speech.transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final' }));
    expect(error.kind).to.equal('unavailable');
    expect(error.message)
      .to.include('127.0.0.1:9')
      .and.not.match(/stt-user|hunter2/);
  });

  it('reports an unreachable engine as unavailable', async () => {
    const closed = await startSpeechEngine({ sentences: SENTENCES });
    await closed.close();
    const speech = new SpeechEngine(speechEngineSettingsFromEnv(closed.env())!, { backoffMs: 10 });
    const error = await rejection(speech.transcribe(await spokenPcm(SENTENCES[0]), { priority: 'final' }));
    expect(error.kind).to.equal('unavailable');
    expect(error.message).to.match(/unreachable.*3 attempts/);
  });
});

describe('speech engine settings (STT_*)', () => {
  it('are off without STT_BASE_URL, with defaults otherwise', () => {
    expect(speechEngineSettingsFromEnv({})).to.equal(null);
    expect(speechEngineSettingsFromEnv({ STT_BASE_URL: 'https://api.openai.com/v1/' })).to.deep.equal({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: null,
      model: 'whisper-1',
      concurrency: 4,
      timeoutMs: 30_000,
      maxAudioSeconds: 14_400,
      maxQueuedSeconds: 600,
      meetingMaxQueuedSeconds: 120,
    });
  });

  it('refuse a base URL with credentials or a query, without echoing it', () => {
    const withUser = () => speechEngineSettingsFromEnv({ STT_BASE_URL: 'https://bob:s3cret-pw@stt.example.com/v1' });
    expect(withUser).to.throw(ConfigError, /STT_BASE_URL: must not hold credentials.*STT_API_KEY/);
    expect(withUser)
      .to.throw(ConfigError)
      .that.satisfies((e: Error) => !/bob|s3cret/.test(e.message));
    expect(() => speechEngineSettingsFromEnv({ STT_BASE_URL: 'https://stt.example.com/v1?key=k-123' })).to.throw(
      /STT_BASE_URL: must not have a query/,
    );
  });

  it("keep a meeting's queue within the worker's, and no bound below one long utterance (30 s)", () => {
    const base = { STT_BASE_URL: 'http://engine/v1' };
    const both = speechEngineSettingsFromEnv({
      ...base,
      STT_MAX_QUEUED_SECONDS: '60',
      STT_MEETING_MAX_QUEUED_SECONDS: '90',
    });
    expect(both).to.include({ maxQueuedSeconds: 60, meetingMaxQueuedSeconds: 60 });
    expect(() => speechEngineSettingsFromEnv({ ...base, STT_MEETING_MAX_QUEUED_SECONDS: '10' })).to.throw(
      /STT_MEETING_MAX_QUEUED_SECONDS: must be at least 30/,
    );
  });

  it('refuse a base URL that is not http(s), and bad numbers, naming each variable', () => {
    const bad = () =>
      speechEngineSettingsFromEnv({ STT_BASE_URL: 'ftp://engine/v1', STT_CONCURRENCY: '0', STT_TIMEOUT_MS: 'soon' });
    expect(bad).to.throw(ConfigError, /STT_BASE_URL: must be an http\(s\) URL/);
    expect(bad).to.throw(/STT_CONCURRENCY: must be at least 1/);
    expect(bad).to.throw(/STT_TIMEOUT_MS/);
    expect(() => speechEngineSettingsFromEnv({ STT_BASE_URL: 'not a url' })).to.throw(ConfigError);
  });
});
