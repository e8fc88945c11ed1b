/** The speech output engine's settings (TTS_*) and its client against espeak-ng behind /v1/audio/speech. */
import { expect } from 'chai';
import { ConfigError } from '@notetaker/config';
import { textToSpeechSettingsFromEnv } from '../../src/speech/text-to-speech-config.js';
import { TextToSpeech, TextToSpeechError } from '../../src/speech/text-to-speech.js';
import { speechOutputForSuite } from '../../../../test/support/speech-output/server.js';

describe('the speech output engine (TTS_*)', function () {
  this.timeout(20_000);
  const engine = speechOutputForSuite({ apiKey: 'sk-tts-secret' });

  it('is off without TTS_BASE_URL, and takes its defaults otherwise', () => {
    expect(textToSpeechSettingsFromEnv({})).to.equal(null);
    expect(textToSpeechSettingsFromEnv({ TTS_BASE_URL: '' })).to.equal(null);
    expect(textToSpeechSettingsFromEnv({ TTS_BASE_URL: 'https://api.openai.com/v1/' })).to.deep.equal({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: null,
      model: 'tts-1',
      voice: 'alloy',
      timeoutMs: 30_000,
    });
  });

  it('refuses a base URL with credentials or a query, naming the variable and not the secret', () => {
    const withUser = () => textToSpeechSettingsFromEnv({ TTS_BASE_URL: 'https://user:pw-123@tts.example.com/v1' });
    expect(withUser).to.throw(ConfigError, /TTS_BASE_URL: must not hold credentials.*TTS_API_KEY/);
    expect(withUser).to.throw(ConfigError).with.property('message').that.does.not.include('pw-123');
    expect(() => textToSpeechSettingsFromEnv({ TTS_BASE_URL: 'ftp://tts.example.com' })).to.throw(
      ConfigError,
      /TTS_BASE_URL: must be an http\(s\) URL/,
    );
  });

  it('gets a WAV of the text in the voice asked for, with the key; says why when refused', async () => {
    const settings = textToSpeechSettingsFromEnv(engine().env())!;
    const wav = await new TextToSpeech(settings).synthesize('hello there', 'nova');
    expect(Buffer.from(wav.slice(0, 4)).toString('latin1')).to.equal('RIFF');
    expect(engine().requests.map((r) => [r.input, r.voice, r.model, r.authorization])).to.deep.equal([
      ['hello there', 'nova', 'espeak-ng', 'Bearer sk-tts-secret'],
    ]);
    const wrongKey = new TextToSpeech({ ...settings, apiKey: 'sk-wrong' });
    const refused = await wrongKey.synthesize('hello', null).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(TextToSpeechError);
    expect((refused as Error).message).to.match(/^the speech engine answered 401/);
    const gone = new TextToSpeech({ ...settings, baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 2000 });
    expect(((await gone.synthesize('hello', null).catch((err: unknown) => err)) as Error).message).to.match(
      /^the speech engine could not be reached/,
    );
  });
});
