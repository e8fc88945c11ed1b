/**
 * Real Chromium for the web application's tests, through puppeteer-core (installed for the
 * meeting platform drivers in services/meeting-session) and with the bots' own Chromium flags.
 * Screenshots go to .test-artifacts/web/.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';
import { chromeArgs } from '../../../../meeting-session/src/drivers/browser.js';

const require = createRequire(path.join(import.meta.dirname, '../../../../meeting-session/package.json'));
const puppeteer = require('puppeteer-core') as typeof import('puppeteer-core');

/** The browser the bots would use (CHROME_PATH, else the first one installed), or null. */
const CHROMIUM = findChrome(process.env.CHROME_PATH);
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../../../../.test-artifacts/web');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 360, height: 740 };

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM ?? undefined,
    headless: true,
    args: chromeArgs(['--disable-dev-shm-usage']),
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) as `${string}.png`, fullPage: true });
}

/** Replaces a field's value by typing, as a person would. */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.click(selector, { count: 3 });
  await page.keyboard.press('Backspace');
  await page.type(selector, value);
}

/** Clicks something that navigates, and waits for the new page. Returns its HTTP status. */
export async function clickAndWait(page: Page, selector: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
    page.click(selector),
  ]);
  return response?.status() ?? 0;
}

export async function text(page: Page, selector = 'main'): Promise<string> {
  return page.$eval(selector, (el) => (el as HTMLElement).innerText);
}

export function pathOf(page: Page): string {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

/** True when nothing on the page is wider than the viewport (no sideways scrolling). */
export function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/**
 * Whether the page fits a phone 360 px wide (fitsWidth), where it is screenshot as `<name>-360`;
 * then back to desktop size.
 */
export async function fitsPhone(page: Page, name: string): Promise<boolean> {
  await page.setViewport(PHONE);
  await screenshot(page, `${name}-360`);
  const fits = await fitsWidth(page);
  await page.setViewport(DESKTOP);
  return fits;
}

/** Every visible form control has an accessible name (a label, aria-label or aria-labelledby). */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea'))
      .filter((el) => el.type !== 'hidden')
      .filter(
        (el) =>
          !(el.labels && el.labels.length > 0) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'),
      )
      .map((el) => el.name || el.id),
  );
}

/**
 * From a suite's `before` hook: skips the suite, saying why, where there is no Chromium to run.
 * `npm test` installs Debian's chromium first where it may (scripts/test.sh), so this skips only on a
 * machine that cannot have one, as the whole-stack e2e suites do (test/e2e/support/world.ts).
 */
export function skipWithoutChromium(context: Mocha.Context): void {
  if (CHROMIUM) return;
  console.log('    (skipped: no Chromium; install chromium or set CHROME_PATH)');
  // A suite that needs a real browser cannot run without one: skipped with the reason above.
  context.skip();
}

/**
 * A new tab at desktop size that accepts confirm() dialogs. With `consoleErrors`, the script
 * errors and CSP violations the pages cause are pushed onto it (a test asserts it stays empty).
 */
export async function openPage(browser: Browser, consoleErrors?: string[]): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport(DESKTOP);
  page.on('dialog', (dialog) => void dialog.accept());
  if (consoleErrors) {
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(String(err)));
  }
  return page;
}

export interface Credentials {
  email: string;
  password: string;
}

/** First-run setup through the form: creates the owner account and signs it in. Returns the HTTP status. */
export async function setUpOwner(page: Page, baseUrl: string, owner: Credentials): Promise<number> {
  await page.goto(`${baseUrl}/setup`);
  await fill(page, '#f-email', owner.email);
  await fill(page, '#f-password', owner.password);
  await fill(page, '#f-confirm', owner.password);
  return clickAndWait(page, 'main button[type=submit]');
}

/** Waits (up to 10 s) until the element's text contains `expected`. */
export async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await page.waitForFunction(
    (sel, want) => (document.querySelector(sel) as HTMLElement | null)?.innerText.includes(want) ?? false,
    { timeout: 10_000 },
    selector,
    expected,
  );
}
