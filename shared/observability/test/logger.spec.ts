import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../src/logger.js';

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
});
