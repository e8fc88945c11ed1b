import { expect } from 'chai';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';
import { meetSelectors } from '../../src/drivers/google-meet/selectors.js';
import { teamsSelectors } from '../../src/drivers/teams/selectors.js';
import { meetScript } from '../../src/drivers/google-meet/page-script.js';
import { teamsScript } from '../../src/drivers/teams/page-script.js';
import { zoomSelectors } from '../../src/drivers/zoom/selectors.js';
import { zoomScript } from '../../src/drivers/zoom/page-script.js';
import { actions } from '../../src/drivers/page-actions.js';

/** Every selector parses in Chromium's own CSS parser, and the page scripts run on a blank page. */
describe('Driver selectors', function () {
  this.timeout(20_000);
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await puppeteer.launch({
      executablePath: findChrome()!,
      headless: true,
      pipe: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    page = await browser.newPage();
    await page.setContent('<!doctype html><title>blank</title><body></body>');
  });
  after(async () => {
    await browser?.close();
  });

  for (const [platform, selectors] of [
    ['Google Meet', meetSelectors],
    ['Teams', teamsSelectors],
    ['Zoom', zoomSelectors],
  ] as const) {
    it(`${platform}: every CSS selector parses`, async () => {
      const entries = Object.entries(selectors.css);
      expect(entries.length).to.be.greaterThan(10);
      const invalid = await page.evaluate((list: Array<[string, string]>) => {
        return list.filter(([, selector]) => {
          try {
            document.querySelectorAll(selector);
            return false;
          } catch {
            return true;
          }
        });
      }, entries);
      expect(invalid).to.deep.equal([]);
    });

    it(`${platform}: every text pattern is a RegExp and every end screen maps to a reason`, () => {
      for (const pattern of Object.values(selectors.text)) expect(pattern).to.be.instanceOf(RegExp);
      for (const [reason, pattern] of selectors.terminal) {
        expect(reason).to.match(/^[a-z_]+$/);
        expect(pattern).to.be.instanceOf(RegExp);
      }
    });
  }

  it('the page scripts run and read a blank page as nothing known', async () => {
    for (const script of [meetScript, teamsScript, zoomScript]) {
      const state = (await page.evaluate(script(actions.inspect.name))) as { screen: string; outcome: string | null };
      expect(state).to.include({ screen: 'unknown', outcome: null });
      expect(await page.evaluate(script(actions.leave.name))).to.equal(false);
    }
  });

  it("names each page action by its key in the table (the page scripts' handlers are keyed by it)", () => {
    for (const [key, action] of Object.entries(actions)) expect(action.name).to.equal(key);
  });
});
