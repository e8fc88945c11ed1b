/**
 * The bots' browser (issue 32): a worker looks for it at start and on every heartbeat and
 * placement; without one it says so once (and installs one where it may), tells the registry, and
 * the registry refuses starts up front with 503 + Retry-After, no record and no claim; a browser
 * appearing later (installed, or CHROME_PATH fixed) is picked up without a restart. No test runs
 * apt-get: the installer is a function that puts an executable where the check looks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '@notetaker/observability';
import { aptInstaller, BotBrowser, BROWSER_FIX, type BrowserInstaller } from '../src/worker/bot-browser.js';
import { eventually, freshMeetUrl, rejection, startHarness, TOKEN_CALLER, type Harness } from './support/harness.js';

const NO_BROWSER = 'No browser for the bots: install chromium or set CHROME_PATH';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'bot-browser-'));
}

/** An executable file (a browser as far as the check can tell). */
function putExecutable(file: string): void {
  fs.writeFileSync(file, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
}

function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ process: 'test', level: 'info', destination: sink }), lines };
}

/** An installer that puts a browser at `file` after `delayMs`, or fails. */
function fakeInstaller(file: string, outcome: 'installs' | 'fails' = 'installs', delayMs = 20): BrowserInstaller {
  return {
    command: 'fake-install chromium',
    async run() {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (outcome === 'fails') throw new Error('fake-install exited with 100: Unable to locate package chromium');
      putExecutable(file);
    },
  };
}

describe('the bots browser check', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A check that finds no browser and installs one at `browser` (or fails to), logging to `lines`. */
  function installingCheck(outcome: 'installs' | 'fails') {
    const browser = path.join(dir, 'chromium');
    const { logger, lines } = capturingLogger();
    const check = new BotBrowser({
      chromePath: null,
      candidates: [browser],
      installer: fakeInstaller(browser, outcome),
      logger,
    });
    return { browser, lines, check };
  }

  it('finds a browser: available, naming it, and says nothing', () => {
    const browser = path.join(dir, 'chromium');
    putExecutable(browser);
    const { logger, lines } = capturingLogger();
    const check = new BotBrowser({
      chromePath: null,
      candidates: [path.join(dir, 'none'), browser],
      installer: null,
      logger,
    });
    check.start();
    expect(check.status()).to.deep.equal({ available: true, browser });
    expect(lines).to.deep.equal([]);
  });

  it('finds none: unavailable with the reason and the fix, said once at start', () => {
    const missing = path.join(dir, 'chromium');
    const { logger, lines } = capturingLogger();
    const check = new BotBrowser({ chromePath: missing, installer: null, logger });
    check.start();
    expect(check.check()).to.equal(false);
    expect(check.status()).to.deep.equal({
      available: false,
      reason: `CHROME_PATH=${missing} is not an executable`,
      fix: BROWSER_FIX,
    });
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([
      [40, `bots unavailable: CHROME_PATH=${missing} is not an executable; fix: ${BROWSER_FIX}`],
    ]);
    const looked = new BotBrowser({ chromePath: null, candidates: [missing], installer: null, logger });
    expect(looked.status().reason).to.equal(`no Chromium or Chrome found (looked for ${missing})`);
  });

  it('installs one at start: "installing" meanwhile, then available, one line before and one after', async () => {
    const { browser, lines, check } = installingCheck('installs');
    let changes = 0;
    check.onChange(() => changes++);
    check.start();
    expect(check.status()).to.include({
      available: false,
      installing: true,
      reason: 'installing Chromium (fake-install chromium)',
    });
    await eventually(() => check.status().available, 'the installed browser');
    expect(check.status()).to.deep.equal({ available: true, browser });
    expect(changes).to.be.at.least(1);
    expect(lines.map((l) => l.msg)).to.deep.equal([
      'no browser for the bots: installing Chromium (fake-install chromium); BOT_INSTALL_BROWSER=false skips this',
      `Chromium installed at ${browser}: bots available`,
    ]);
  });

  it('a failed install: unavailable, saying why and what to run', async () => {
    const { lines, check } = installingCheck('fails');
    check.start();
    await eventually(() => lines.length === 2, 'the install to end');
    expect(check.status()).to.deep.equal({
      available: false,
      reason: 'installing Chromium failed: fake-install exited with 100: Unable to locate package chromium',
      fix: BROWSER_FIX,
    });
    expect(lines[1].level).to.equal(50);
  });

  it('picks up a browser appearing later (CHROME_PATH fixed), and one going away, logging each change', () => {
    const browser = path.join(dir, 'chromium');
    const { logger, lines } = capturingLogger();
    const check = new BotBrowser({ chromePath: browser, installer: null, logger });
    check.start();
    putExecutable(browser);
    expect(check.check()).to.equal(true);
    expect(check.check()).to.equal(true);
    fs.rmSync(browser);
    expect(check.check()).to.equal(false);
    expect(lines.map((l) => l.msg.split(';')[0])).to.deep.equal([
      'bots unavailable: CHROME_PATH=' + browser + ' is not an executable',
      `browser found at ${browser}: bots available`,
      'bots unavailable: CHROME_PATH=' + browser + ' is not an executable',
    ]);
  });
});

describe("the bots browser check's apt-get installer (a fake apt-get first on the PATH)", () => {
  let dir: string;
  let path0: string | undefined;
  beforeEach(function () {
    if (process.getuid?.() !== 0) this.skip();
    dir = tempDir();
    path0 = process.env.PATH;
    process.env.PATH = `${dir}${path.delimiter}${path0}`;
  });
  afterEach(() => {
    process.env.PATH = path0;
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** apt-get that notes its arguments and environment, and fails `install` when told to. */
  const fakeAptGet = (installExit: number) =>
    fs.writeFileSync(
      path.join(dir, 'apt-get'),
      `#!/bin/sh\necho "$* $DEBIAN_FRONTEND" >> ${dir}/calls\n` +
        `if [ "$1" = install ] && [ ${installExit} != 0 ]; then echo 'E: Unable to locate package chromium' >&2; exit ${installExit}; fi\n`,
      { mode: 0o755 },
    );

  it('runs apt-get update, then apt-get install -y chromium, without questions', async () => {
    fakeAptGet(0);
    const installer = aptInstaller()!;
    expect(installer.command).to.equal('apt-get update && apt-get install -y chromium');
    await installer.run();
    expect(fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n')).to.deep.equal([
      'update -qq noninteractive',
      'install -y -qq chromium noninteractive',
    ]);
  });

  it("fails with apt-get's own last words", async () => {
    fakeAptGet(100);
    const err = await aptInstaller()!
      .run()
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(err?.message).to.equal(
      'apt-get install -y -qq chromium exited with 100: E: Unable to locate package chromium',
    );
  });
});

describe('meeting-session without a browser for its bots (bus contract)', () => {
  let h: Harness;
  let dir: string;
  let browser: string;

  const startWhenAvailable = (url: string) => eventually(() => h.start({ url }), 'a start the registry accepts');

  afterEach(async () => {
    await h.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a start with 503 and Retry-After, keeps no record and no claim; a browser found later takes the same URL', async () => {
    dir = tempDir();
    browser = path.join(dir, 'chromium');
    h = await startHarness({ CHROME_PATH: browser }, { session: { browserCheck: {} } });
    expect(h.session.readiness!()).to.deep.include({
      bots: { available: false, reason: `CHROME_PATH=${browser} is not an executable`, fix: BROWSER_FIX },
    });

    const url = freshMeetUrl();
    const refused = await rejection(h.start({ url }));
    expect([refused.status, refused.code, refused.retryable, refused.retryAfterS, refused.message]).to.deep.equal([
      503,
      'no_browser',
      true,
      30,
      NO_BROWSER,
    ]);
    expect(h.driver.started).to.have.length(0);
    expect(await h.request('status', { caller: TOKEN_CALLER })).to.deep.equal({ meetings: [] });
    // No document was reserved either: the project folder was never made.
    expect(fs.existsSync(path.join(h.dataDir, 'deployed-md-files', 'docs', 'api'))).to.equal(false);

    putExecutable(browser);
    expect(h.session.readiness!()).to.deep.include({ bots: { available: true, browser } });
    const started = await startWhenAvailable(url);
    expect(started.platform).to.equal('google_meet');
    await eventually(() => h.driver.started.length === 1, 'the bot');
  });

  it('installs a browser at start where it may; starts are taken once it is there', async () => {
    dir = tempDir();
    browser = path.join(dir, 'chromium');
    h = await startHarness(
      {},
      { session: { browserCheck: { candidates: [browser], installer: fakeInstaller(browser, 'installs', 300) } } },
    );
    expect(h.session.readiness!().bots).to.include({ available: false, installing: true });
    expect((await rejection(h.start())).message).to.equal(NO_BROWSER);
    await startWhenAvailable(freshMeetUrl());
    expect(h.session.readiness!()).to.deep.include({ bots: { available: true, browser } });
  });

  it('a worker whose browser went since its last heartbeat declines the placement: the start says why', async () => {
    dir = tempDir();
    browser = path.join(dir, 'chromium');
    putExecutable(browser);
    // A long lease: no periodic heartbeat tells the registry before the start does.
    h = await startHarness({ CHROME_PATH: browser, WORKER_LEASE_MS: '60000' }, { session: { browserCheck: {} } });
    fs.rmSync(browser);
    const refused = await rejection(h.start());
    expect([refused.status, refused.message]).to.deep.equal([503, NO_BROWSER]);
    expect(h.driver.started).to.have.length(0);
  });
});
