import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../src/logger.js';
import { redactUrl, redactUrls } from '../src/redact.js';

/** A logger at info whose lines are kept in `lines`. */
function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { captured: createLogger({ service: 'test', level: 'info', destination: sink }), lines };
}

describe('logger', () => {
  it('redacts secrets wherever they appear in a logged object', () => {
    const { captured, lines } = capturedLogger();
    captured.info(
      {
        apiKey: 'sk_live_secret',
        token: { signingSecret: 'ss_secret' },
        req: { headers: { authorization: 'Bearer sk_x', 'x-api-key': 'sk_y' } },
        nested: { deeper: { password: 'hunter2' } },
        keep: 'visible',
      },
      'hello',
    );
    const out = lines.join('');
    expect(out).to.contain('visible');
    for (const secret of ['sk_live_secret', 'ss_secret', 'Bearer sk_x', 'sk_y', 'hunter2'])
      expect(out).not.to.contain(secret);
  });

  it('redacts a bot account’s storage state, its cookies and localStorage', () => {
    const { captured, lines } = capturedLogger();
    captured.info(
      {
        request: { account: { id: 'bot_1', session: { cookies: [{ value: 'sid-1' }] } } },
        cookies: [{ value: 'sid-2' }],
        state: { localStorage: [{ value: 'ls-3' }] },
        sessionText: '{"cookies":"sid-4"}',
        target: { account: { storageState: { origins: 'sid-5' } } },
        storageStateText: '{"cookies":"sid-6"}',
      },
      'placing',
    );
    const out = lines.join('');
    expect(out).to.contain('bot_1');
    for (const secret of ['sid-1', 'sid-2', 'ls-3', 'sid-4', 'sid-5', 'sid-6']) expect(out).not.to.contain(secret);
  });

  it('redacts every secret setting, by its variable and by its name in a parsed config', () => {
    const { captured, lines } = capturedLogger();
    const secrets = {
      STT_API_KEY: 'stt-key-one',
      RECORDINGS_S3_SECRET_ACCESS_KEY: 's3-secret-two',
      LLM_API_KEY: 'llm-key-three',
      SECRETS_KEY: 'secrets-key-four',
    };
    captured.info(secrets, 'settings');
    captured.info({ config: { env: { ...secrets, STT_MODEL: 'whisper-1' } } }, 'the environment, nested');
    captured.info(
      {
        speech: { apiKey: 'stt-key-five' },
        storage: { secretAccessKey: 's3-secret-six', accessKeyId: 'AKIAVISIBLE' },
        secretsKey: 'secrets-key-seven',
      },
      'parsed',
    );
    const out = lines.join('');
    expect(out).to.contain('whisper-1').and.contain('AKIAVISIBLE');
    for (const n of ['one', 'two', 'three', 'four', 'five', 'six', 'seven']) expect(out).not.to.contain(`-${n}`);
    expect(lines).to.have.length(3);
  });

  it('strips credentials and secret parameters from every URL in a line: fields, messages, errors', () => {
    const { captured, lines } = capturedLogger();
    const withCredentials = 'https://alice:pa55w0rd@stt.example.com/v1';
    // What fetch throws for such a URL names it whole.
    const error = new TypeError(
      `Request cannot be constructed from a URL that includes credentials: ${withCredentials}`,
    );
    captured.error({ err: error, engine: withCredentials }, `could not reach ${withCredentials}/audio/transcriptions`);
    captured.warn(error);
    captured.info(
      { link: 'https://bucket.s3.example.com/a.ogg?X-Amz-Signature=abcdef123&X-Amz-Expires=300&api_key=k9&part=2' },
      'presigned',
    );
    const out = lines.join('');
    for (const secret of ['alice', 'pa55w0rd', 'abcdef123', 'k9&']) expect(out).not.to.contain(secret);
    expect(out).to.contain('https://[redacted]@stt.example.com/v1/audio/transcriptions');
    expect(out).to.contain('X-Amz-Expires=300').and.contain('part=2');
    for (const line of lines) expect(() => JSON.parse(line)).not.to.throw();
  });
});

describe('redactUrls', () => {
  it('leaves text without secrets as it is, and redacts each URL in a message', () => {
    const plain = 'speech engine answered 503 at http://127.0.0.1:8000/v1 (3 attempts)';
    expect(redactUrls(plain)).to.equal(plain);
    expect(redactUrls('a nats://u:p@nats:4222 and mongodb://root:s3cr@t@db/x?authSource=admin&ssl=true')).to.equal(
      'a nats://[redacted]@nats:4222 and mongodb://[redacted]@db/x?authSource=[redacted]&ssl=true',
    );
    expect(redactUrl('https://h/p#access_token=t0k&state=1')).to.equal('https://h/p#access_token=[redacted]&state=1');
    expect(redactUrl('https://h/search?q=key')).to.equal('https://h/search?q=key');
  });
});
