/**
 * Real Chromium for the web application's tests, through puppeteer-core (installed for the
 * meeting platform drivers in services/meeting-session). Screenshots go to .test-artifacts/web/.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

const require = createRequire(path.join(import.meta.dirname, '../../../../meeting-session/package.json'));
const puppeteer = require('puppeteer-core') as typeof import('puppeteer-core');

export const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../../../../.test-artifacts/web');

export function chromiumPresent(): boolean {
  return fs.existsSync(CHROMIUM);
}

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
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
