/** The speech output engine's settings (TTS_*) and its client against espeak-ng behind /v1/audio/speech. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('refuses an answer over 32 MB without holding it whole, and quotes at most 300 bytes of a refusal', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let sent = 0;
    const server = http.createServer((req, res) => {
      if (req.url?.includes('refuse')) {
        res.writeHead(500);
        return res.end('x'.repeat(100_000));
      }
      res.writeHead(200, { 'content-type': 'audio/wav' });
      // An engine that would go on for ever: the client stops reading past the limit.
      const more = () => {
        while (sent < 200 * chunk.length && res.write(chunk)) sent += chunk.length;
        if (sent < 200 * chunk.length) res.once('drain', more);
        else res.end();
      };
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const settings = { baseUrl: `${base}/v1`, apiKey: null, model: 'm', voice: 'v', timeoutMs: 10_000 };
      const big = await new TextToSpeech(settings).synthesize('hello', null).catch((err: unknown) => err);
      expect((big as Error).message).to.equal('the speech engine answered over 32 MB of audio');
      expect(sent).to.be.below(100 * chunk.length);
      const refusal = new TextToSpeech({ ...settings, baseUrl: `${base}/refuse` });
      const refused = (await refusal.synthesize('hello', null).catch((err: unknown) => err)) as Error;
      expect(refused.message).to.equal(`the speech engine answered 500: ${'x'.repeat(300)}`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
