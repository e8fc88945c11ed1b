/**
 * Accounts, sessions and API tokens in real Chromium against the real stack: first-run setup,
 * sign-out and sign-in (a wrong password first), a token shown once whose key works on the REST
 * API until it is revoked, a form without its CSRF token, and an expired session.
 */
import { expect } from 'chai';
import { afterClockMoves } from '../../../../test/support/wait.js';
import {
  clickAndWait,
  fill,
  fitsPhone,
  pathOf,
  screenshot,
  setUpOwner,
  text,
  unlabelledControls,
} from './support/browser.js';
import { chromiumOnStack } from './support/chromium-stack.js';
import { startGatewayOnly } from './support/gateway-only.js';
import { OWNER } from './support/web-client.js';

describe('web application in Chromium: accounts and API tokens', function () {
  this.timeout(60_000);
  const web = chromiumOnStack();

  async function signIn(email: string, password: string): Promise<number> {
    await fill(web.page, '#f-email', email);
    await fill(web.page, '#f-password', password);
    return clickAndWait(web.page, 'main button[type=submit]');
  }

  it('creates the owner account on first run and signs it in', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/`);
    expect(pathOf(page)).to.equal('/setup');
    expect(await unlabelledControls(page)).to.deep.equal([]);
    await screenshot(page, 'setup');
    await fill(page, '#f-email', OWNER.email);
    await fill(page, '#f-password', OWNER.password);
    await fill(page, '#f-confirm', OWNER.password);
    expect(await clickAndWait(page, 'main button[type=submit]')).to.equal(200);
    expect(pathOf(page)).to.equal('/meetings');
    expect(await text(page, 'footer')).to.contain(`Signed in as ${OWNER.email}`);
  });

  it('signs out, shows a wrong password next to the field, then signs in', async () => {
    const { page } = web;
    await clickAndWait(page, 'nav form[action="/signout"] button');
    expect(pathOf(page)).to.equal('/signin?notice=signed-out');
    expect(await text(page)).to.contain('You have signed out.');
    await screenshot(page, 'signin');
    expect(await fitsPhone(page, 'signin'), 'sign-in fits 360 px').to.equal(true);

    expect(await signIn(OWNER.email, 'this is not it')).to.equal(401);
    const error = await page.$eval('#f-password-error', (el) => (el as HTMLElement).innerText);
    expect(error).to.equal('The email or the password is not right.');
    expect(await page.$eval('#f-password', (el) => el.getAttribute('aria-invalid'))).to.equal('true');
    expect(await page.$eval('#f-password', (el) => el.getAttribute('aria-describedby'))).to.equal('f-password-error');
    await screenshot(page, 'signin-wrong-password');

    expect(await signIn(OWNER.email, OWNER.password)).to.equal(200);
    expect(pathOf(page)).to.equal('/meetings');
  });

  it('creates a token shown once, whose key works on the REST API until it is revoked', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/settings/tokens`);
    expect(await text(page)).to.contain('You have no tokens yet.');
    await fill(page, '#f-name', 'CRM sync');
    expect(
      await page.$eval('input[name=capabilities][value="knowledge:write"]', (el) => (el as HTMLInputElement).checked),
    ).to.equal(true);
    await clickAndWait(page, 'form[action="/settings/tokens"] button[type=submit]');
    expect(pathOf(page)).to.equal('/settings/tokens/new');

    const apiKey = await page.$eval('#api-key', (el) => (el as HTMLInputElement).value);
    const signingSecret = await page.$eval('#signing-secret', (el) => (el as HTMLInputElement).value);
    expect(apiKey).to.match(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(signingSecret).to.match(/^ss_[A-Za-z0-9_-]{43}$/);
    expect(await text(page)).to.contain('They will not be shown again');
    await page
      .browserContext()
      .overridePermissions(t.baseUrl, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    await page.click('button[data-copy="api-key"]');
    await page.waitForFunction(
      () => document.querySelector('.copy-status')?.textContent === 'Copied to the clipboard.',
    );
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(apiKey);
    await screenshot(page, 'token-created');

    await page.reload();
    expect(pathOf(page)).to.equal('/settings/tokens?notice=token-gone');
    const html = await page.content();
    expect(html).not.to.contain(apiKey);
    expect(html).not.to.contain(signingSecret);
    expect(await text(page, 'table')).to.contain('CRM sync');

    expect((await t.api('/projects', { apiKey })).status).to.equal(200);
    expect(await text(page, 'table')).to.match(/CRM sync\s+knowledge:write/);
    await screenshot(page, 'tokens');

    await clickAndWait(page, 'form[action$="/revoke"] button');
    expect(pathOf(page)).to.equal('/settings/tokens?notice=token-revoked');
    expect(await text(page, 'table')).to.contain('Revoked');
    const refused = await t.api('/projects', { apiKey });
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.deep.equal({ error: 'Invalid API key' });
  });

  it('refuses a form whose CSRF token was taken out, and creates nothing', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/settings/tokens`);
    const before = ((await t.stack.admin({ command: 'token.list' })) as unknown[]).length;
    await page.$eval('form[action="/settings/tokens"] input[name=_csrf]', (el) => el.remove());
    await fill(page, '#f-name', 'Forged');
    expect(await clickAndWait(page, 'form[action="/settings/tokens"] button[type=submit]')).to.equal(403);
    expect(await text(page)).to.contain('This form has expired or was not sent from this site');
    expect((await t.stack.admin({ command: 'token.list' })) as unknown[]).to.have.length(before);
  });

  it('sends an expired session back to sign-in, and then to the page it was on', async () => {
    const { page } = web;
    const g = await startGatewayOnly({ WEB_SESSION_IDLE_MS: '1200' });
    try {
      await setUpOwner(page, g.baseUrl, OWNER);
      await page.goto(`${g.baseUrl}/settings/tokens`);
      expect(pathOf(page)).to.equal('/settings/tokens');
      // The gateway's clock (it runs in this process) moves past the idle time; nothing waits for it.
      await afterClockMoves(1500, () => page.reload());
      expect(pathOf(page)).to.equal('/signin?next=%2Fsettings%2Ftokens&notice=expired');
      expect(await text(page)).to.contain('Your session has expired. Sign in again to continue.');
      await signIn(OWNER.email, OWNER.password);
      expect(pathOf(page)).to.equal('/settings/tokens');
    } finally {
      await g.stop();
    }
  });
});
