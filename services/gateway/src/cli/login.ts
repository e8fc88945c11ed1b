/**
 * `bot-account login`: a person signs the bot account in, in a visible Chromium on their desktop,
 * and the account's storage state is taken when they close it. The browser gives nothing once closed, so its
 * cookies and the platform origins' localStorage are read every second while it is open and the
 * last reading is the storage state.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Platform } from '@notetaker/contracts';
import { CHROME_CANDIDATES, findChrome } from '@notetaker/find-chrome';
import { isPlatformHost } from '../identity/storage-state-file.js';

const NO_DISPLAY = 'bot-account login needs a display: run it on a desktop, then import the file with bot-account add';

const START_URL: Record<Platform, string> = {
  google_meet: 'https://accounts.google.com/ServiceLogin?continue=https://meet.google.com/',
  teams: 'https://login.microsoftonline.com/',
  zoom: 'https://zoom.us/signin',
};
/** Teams keeps part of its sign-in in its own origin's localStorage: visit it once signed in. */
const TEAMS_URL = 'https://teams.microsoft.com/';

/** Besides the Linux packages' places: a desktop's may be a Mac. */
const MAC_CHROME_PATHS = [
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

interface StorageState {
  cookies: unknown[];
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

/** Runs the sign-in and resolves with the session file's text (Playwright's storageState shape). */
export async function captureStorageState(platform: Platform, say: (line: string) => void): Promise<string> {
  // macOS has a display without DISPLAY; elsewhere X11 or Wayland says there is one.
  if (process.platform !== 'darwin' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    throw new Error(NO_DISPLAY);
  }
  const executablePath = findChrome(process.env.CHROME_PATH, [...CHROME_CANDIDATES, ...MAC_CHROME_PATHS]);
  if (!executablePath) throw new Error('no Chromium or Chrome found: install one or set CHROME_PATH');
  const { default: puppeteer } = await import('puppeteer-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-account-login-'));
  const state: StorageState = { cookies: [], origins: [] };
  try {
    const browser = await puppeteer.launch({
      executablePath,
      headless: false,
      userDataDir,
      defaultViewport: null,
      ignoreDefaultArgs: ['--enable-automation'],
      // Google refuses sign-in in a browser that says it is automated.
      args: ['--no-first-run', '--no-default-browser-check', '--disable-blink-features=AutomationControlled'],
    });
    const closed = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));
    const [page] = await browser.pages();
    say(`Sign in to the bot account in the browser window, then close the window to save the session.`);
    await page.goto(START_URL[platform]).catch(() => {});
    const origins = new Map<string, StorageState['origins'][number]>();
    let teamsVisited = false;
    let open = true;
    void closed.then(() => (open = false));
    while (open) {
      try {
        const cdp = await browser.target().createCDPSession();
        const { cookies } = (await cdp.send('Storage.getCookies')) as { cookies: Array<{ domain: string }> };
        await cdp.detach();
        state.cookies = cookies.filter((c) => isPlatformHost(platform, c.domain));
        for (const p of await browser.pages()) {
          const url = new URL(p.url());
          if (url.protocol !== 'https:' || !isPlatformHost(platform, url.hostname)) continue;
          const localStorage = await p.evaluate(() =>
            Object.entries(window.localStorage).map(([name, value]) => ({ name, value })),
          );
          origins.set(url.origin, { origin: url.origin, localStorage });
        }
        state.origins = [...origins.values()];
        // Signed in (the sign-in page moved on): open Teams once, so its origin's storage is there.
        if (platform === 'teams' && !teamsVisited && !/login\.|\.live\.com$/.test(new URL(page.url()).hostname)) {
          teamsVisited = true;
          say('Signed in: opening Teams once so its own storage is saved too. Close the window when Teams has loaded.');
          await page.goto(TEAMS_URL).catch(() => {});
        }
      } catch {
        // The browser closing mid-reading: the previous reading stands.
      }
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
  } finally {
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  return JSON.stringify(state);
}
