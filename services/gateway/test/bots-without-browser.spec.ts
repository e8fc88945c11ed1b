/**
 * The whole stack on a machine whose bots have no browser (issue 32): everything else serves,
 * /readyz says so in a field (ready all the same) with the command that fixes it, one warning at
 * start says the same, and a start answers 503 with Retry-After and the message, over REST and in
 * the web form, leaving no meeting behind; once a browser is at CHROME_PATH the same link starts.
 * CHROME_PATH is set, so nothing is installed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from '../../../test/support/wait.js';
import { stackPerSuite } from './support/stack-per-suite.js';
import { WebClient } from './web/support/web-client.js';

const NO_BROWSER = 'No browser for the bots: install chromium or set CHROME_PATH';
const FIX = 'apt-get install -y chromium (as root), or set CHROME_PATH to a Chromium or Chrome executable';
const MEET_URL = 'https://meet.google.com/abc-defg-hij';

describe('the stack without a browser for its bots', () => {
  let dir: string;
  let chrome: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-browser-'));
    chrome = path.join(dir, 'chromium');
  });
  const t = stackPerSuite({ env: () => ({ CHROME_PATH: chrome, WORKER_LEASE_MS: '1500' }) });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const start = () =>
    t.api('/meetings/start', {
      method: 'POST',
      apiKey: t.apiKey,
      json: { url: MEET_URL, callbackUrl: 'http://127.0.0.1:9/hooks', project: 'api' },
    });

  it('serves, and says on /readyz and once in the log that bots are unavailable and how to fix it', async () => {
    const ready = await fetch(`${t.baseUrl}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({
      status: 'ready',
      bots: { available: false, reason: `CHROME_PATH=${chrome} is not an executable`, fix: FIX },
      audioTranscription: 'off',
      speechOutput: 'off',
    });
    const said = t.warnings().filter((line) => String(line.msg).startsWith('bots unavailable'));
    expect(said.map((line) => line.msg)).to.deep.equal([
      `bots unavailable: CHROME_PATH=${chrome} is not an executable; fix: ${FIX}`,
    ]);
  });

  it('answers a start 503 with Retry-After and the message, and makes no meeting', async () => {
    const res = await start();
    expect([res.status, res.headers.get('retry-after')]).to.deep.equal([503, '30']);
    expect(await res.json()).to.deep.equal({ error: NO_BROWSER });
    expect(await (await t.api('/meetings/status', { apiKey: t.apiKey })).json()).to.deep.equal({ meetings: [] });
    expect(fs.existsSync(path.join(t.contentRoot, 'deployed-md-files', 'docs', 'api'))).to.equal(false);
  });

  it('the web form says the same', async () => {
    const owner = new WebClient(t.baseUrl);
    await owner.setup('owner@example.com', 'a long enough password');
    const form = await owner.post('/meetings', {
      _csrf: await owner.csrf('/meetings'),
      url: MEET_URL,
      project: 'general',
      saveTranscript: 'true',
    });
    expect([form.status, form.headers.get('retry-after')]).to.deep.equal([503, '30']);
    expect(form.text).to.contain(NO_BROWSER);
  });

  it('picks up a browser put at CHROME_PATH later, without a restart: the same link starts', async () => {
    // Not a browser (it exits at once), but the check can only tell that when the bot launches it.
    fs.writeFileSync(chrome, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    expect((await (await fetch(`${t.baseUrl}/readyz`)).json()).bots).to.deep.equal({
      available: true,
      browser: chrome,
    });
    const res = await eventually(async () => {
      const answer = await start();
      return answer.status === 201 ? answer : null;
    }, 'a start taken');
    expect(await res.json()).to.include({ status: 'joining', platform: 'google_meet' });
    // The bot's launch fails (browser_unavailable): the meeting ends and frees the link.
    await eventually(
      async () => (await (await t.api('/meetings/status', { apiKey: t.apiKey })).json()).meetings.length === 0,
      'the meeting to end',
      20_000,
    );
  });
});
