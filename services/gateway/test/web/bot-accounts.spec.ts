/**
 * Account settings -> Bot accounts over HTTP: the owner adds (the session file's text in the
 * form, as app.js sends it), lists and removes, each POST with its CSRF token; the session is
 * never shown back; other accounts cannot reach the page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, ElementHandle } from 'puppeteer-core';
import { COOKIE_SECRET, googleState, STORAGE_SECRET, teamsState } from '../identity/storage-states.js';
import {
  clickAndWait,
  fill,
  fitsWidth,
  launchChromium,
  openPage,
  screenshot,
  skipWithoutChromium,
  text,
  unlabelledControls,
} from './support/browser.js';
import { gatewayOnlyForSuite, startGatewayOnly, type GatewayOnly } from './support/gateway-only.js';
import { OWNER, WebClient } from './support/web-client.js';

const PAGE = '/settings/bot-accounts';

/** The add form's fields: a Google Meet account for one meeting at a time, but for `changes`. */
function addForm(changes: Record<string, string> = {}): Record<string, string> {
  return { platform: 'google_meet', name: 'x', maxMeetings: '1', session: googleState(), ...changes };
}

describe('web application: bot accounts', () => {
  const g = gatewayOnlyForSuite();
  let owner: WebClient;
  const stored = async () => (await g.admin({ command: 'bot-account.list' })) as Array<{ id: string; name: string }>;

  before(async () => {
    owner = new WebClient(g.baseUrl);
    await owner.setup(OWNER.email, OWNER.password);
  });

  it('shows the owner the page, its tab, and an empty list', async () => {
    const page = await owner.get(PAGE);
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('<h1>Bot accounts</h1>').and.contain('No bot accounts yet.');
    expect(page.text).to.match(/<input\s+id="f-session-file"\s+type="file"[^>]*data-session-into="f-session"/);
    expect((await owner.get('/settings/tokens')).text).to.contain(`href="${PAGE}"`);
  });

  it('refuses a POST without its CSRF token and stores nothing', async () => {
    const res = await owner.post(PAGE, addForm({ name: 'No token' }));
    expect(res.status).to.equal(403);
    expect(await stored()).to.deep.equal([]);
  });

  it('shows what is wrong with a bad file next to it, never the file, and stores nothing', async () => {
    const cases: Array<[string, string, string]> = [
      ['not JSON', `not json ${COOKIE_SECRET}`, 'The session file is not JSON'],
      ['expired only', googleState({ expires: 1000 }), 'The session file holds only expired cookies for google.com'],
      ['foreign', teamsState(), 'The session file has no cookies for google.com'],
      ['over 1 MB', `${' '.repeat(1024 * 1024)}${googleState()}`, 'The session file is over 1 MB'],
      ['missing', '', 'Choose the session file (or paste its contents).'],
    ];
    for (const [what, session, message] of cases) {
      const res = await owner.submit(PAGE, addForm({ name: what, session }));
      expect(res.status, what).to.equal(400);
      expect(res.text, what).to.match(
        new RegExp(`<small id="f-session-error" class="field-error">${message.replace(/[.()]/g, '\\$&')}[^<]*</small>`),
      );
      expect(res.text, what).not.to.contain(COOKIE_SECRET);
      expect(res.text, what).to.match(/<textarea\s+id="f-session"\s+name="session"[^>]*><\/textarea>/);
    }
    const tooMany = await owner.submit(PAGE, addForm({ maxMeetings: '51' }));
    expect(tooMany.status).to.equal(400);
    expect(tooMany.text).to.contain('maxMeetings must be a whole number from 1 to 50');
    // Beyond what the form may carry: refused before it is read, with the same words.
    const huge = await owner.submit(PAGE, { session: '{'.repeat(1_100_000) });
    expect(huge.status).to.equal(413);
    expect(huge.text).to.contain('The session file is over 1 MB');
    expect(await stored()).to.deep.equal([]);
  });

  it('adds, lists and removes an account, never rendering its session', async () => {
    const added = await owner.submit(
      PAGE,
      addForm({ platform: 'teams', name: 'Teams bot', maxMeetings: '4', session: teamsState() }),
    );
    expect(added.status).to.equal(303);
    expect(added.location).to.equal(`${PAGE}?notice=bot-account-added`);
    const [account] = await stored();
    const page = await owner.get(added.location!);
    expect(page.text).to.contain('Delete the session file now');
    const row = new RegExp(`data-bot-account-id="${account.id}"[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
    expect(row)
      .to.contain('Teams bot')
      .and.contain('Microsoft Teams')
      .and.contain('Active')
      .and.contain('not seen yet');
    expect(row)
      .to.match(/data-label="Max meetings">4</)
      .and.match(/data-label="In use">0</)
      .and.contain('never');
    for (const secret of [COOKIE_SECRET, STORAGE_SECRET, 'ESTSAUTH']) expect(page.text).not.to.contain(secret);

    const dup = await owner.submit(PAGE, addForm({ platform: 'teams', name: 'Teams bot', session: teamsState() }));
    expect(dup.status).to.equal(409);
    expect(dup.text).to.match(
      /<small id="f-name-error" class="field-error">A Microsoft Teams bot account named &quot;Teams bot&quot; already exists</,
    );

    const remove = `${PAGE}/${account.id}/remove`;
    expect((await owner.post(remove, {})).status).to.equal(403);
    expect(await stored()).to.have.length(1);
    const removed = await owner.submit(remove, {}, PAGE);
    expect(removed.location).to.equal(`${PAGE}?notice=bot-account-removed`);
    expect(await stored()).to.deep.equal([]);
    expect((await owner.get(PAGE)).text).to.contain('No bot accounts yet.');
  });

  it('is the owner’s only: another account gets 403 and no tab', async () => {
    await g.admin({ command: 'account.create', email: 'member@example.com', password: 'member long password' });
    const member = new WebClient(g.baseUrl);
    expect((await member.signIn('member@example.com', 'member long password')).status).to.equal(303);
    const page = await member.get(PAGE);
    expect(page.status).to.equal(403);
    expect(page.text).to.contain('Only the owner account (the first one, made at setup) manages bot accounts.');
    expect((await member.get('/settings/tokens')).text).not.to.contain(`href="${PAGE}"`);
    const post = await member.submit(PAGE, addForm(), '/settings/tokens');
    expect(post.status).to.equal(403);
    expect(await stored()).to.deep.equal([]);
  });
});

describe('web application in Chromium: bot accounts', function () {
  this.timeout(60_000);
  let browser: Browser;
  let g: GatewayOnly;
  let dir: string;

  before(async function () {
    skipWithoutChromium(this);
    [browser, g] = await Promise.all([launchChromium(), startGatewayOnly()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-session-file-'));
  });
  after(async () => {
    await browser?.close();
    await g?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads the session file chosen in the file picker (read by app.js) and lists the account', async () => {
    await new WebClient(g.baseUrl).setup(OWNER.email, OWNER.password);
    const page = await openPage(browser);
    await page.goto(`${g.baseUrl}/signin`);
    await fill(page, '#f-email', OWNER.email);
    await fill(page, '#f-password', OWNER.password);
    await clickAndWait(page, 'main button[type=submit]');
    await page.goto(`${g.baseUrl}${PAGE}`);
    expect(await unlabelledControls(page)).to.deep.equal([]);

    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, googleState());
    await page.select('#f-platform', 'google_meet');
    await fill(page, '#f-name', 'Browser bot');
    await ((await page.$('#f-session-file')) as ElementHandle<HTMLInputElement>).uploadFile(file);
    await page.waitForFunction(() => (document.getElementById('f-session') as HTMLTextAreaElement).value.length > 0);
    expect(await clickAndWait(page, 'main form[action="/settings/bot-accounts"] button[type=submit]')).to.equal(200);
    const shown = await text(page);
    expect(shown).to.contain('Browser bot').and.contain('Google Meet').and.contain('Active');
    expect(await page.content()).not.to.contain(COOKIE_SECRET);
    await screenshot(page, 'bot-accounts');
    await page.setViewport({ width: 360, height: 800 });
    expect(await fitsWidth(page)).to.equal(true);
    await screenshot(page, 'bot-accounts-narrow');

    await clickAndWait(page, 'form[action$="/remove"] button[type=submit]');
    expect(await text(page)).to.contain('No bot accounts yet.');
  });
});
