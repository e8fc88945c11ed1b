/**
 * A simulated meeting page brought into the call with captions on, by the drivers' own page
 * scripts and join steps (PlatformAdapter.advanceJoin / tendCall) in a tight loop instead of the
 * driver's poll: the page-level variant tests and the caption-reader benchmark open dozens of these
 * on one browser, so each must take a fraction of a second. Caption reports from the page's own
 * observer are collected as they arrive.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { SimMeeting, SimPlatform, Simulator } from '../../../../test/simulators/index.js';
import { findChrome } from '@notetaker/find-chrome';
import { chromeArgs } from '../../src/drivers/browser.js';
import { googleMeet } from '../../src/drivers/google-meet.js';
import type { MeetCaptionBlock } from '../../src/drivers/meet-captions.js';
import { actions } from '../../src/drivers/page-actions.js';
import type { PageState } from '../../src/drivers/page-readings.js';
import { ActionMemo, type PlatformAdapter } from '../../src/drivers/platform.js';
import { teams } from '../../src/drivers/teams.js';
import { zoom } from '../../src/drivers/zoom.js';
import type { TeamsCaptionRow } from '../../src/drivers/teams-captions.js';
import { sleep } from '../../../../test/support/wait.js';

export type CaptionItem = MeetCaptionBlock | TeamsCaptionRow;

export const ADAPTERS: Record<SimPlatform, PlatformAdapter<CaptionItem>> = {
  google_meet: googleMeet as PlatformAdapter<CaptionItem>,
  teams: teams as PlatformAdapter<CaptionItem>,
  zoom: zoom as PlatformAdapter<CaptionItem>,
};

export const DISPLAY_NAME = 'Notetaker';

export interface CallPage {
  page: Page;
  adapter: PlatformAdapter<CaptionItem>;
  /** Every caption reading the page's observer reported, in order. */
  reports: CaptionItem[][];
  inspect(): Promise<PageState<CaptionItem>>;
}

export function launchBrowser(sim: Simulator): Promise<Browser> {
  const executablePath = findChrome(process.env.CHROME_PATH);
  if (!executablePath) throw new Error('no Chromium (set CHROME_PATH or install chromium)');
  return puppeteer.launch({ executablePath, headless: true, pipe: true, args: chromeArgs(sim.hostResolverRules()) });
}

const MEMO_STEP_MS = 400;

/**
 * Opens the meeting on `page`, joins (admitting the bot if it waits in the lobby), turns captions
 * on and installs the caption observer. `screens` collects every screen the page was read on.
 */
export async function enterCall(
  page: Page,
  platform: SimPlatform,
  sim: Simulator,
  meetingId: string,
  screens: string[] = [],
  timeoutMs = 10_000,
): Promise<CallPage> {
  const adapter = ADAPTERS[platform];
  const reports: CaptionItem[][] = [];
  await page.exposeFunction('__ntCaptions', (json: string) => {
    reports.push((JSON.parse(json) as { items: CaptionItem[] }).items);
  });
  const meeting: SimMeeting = sim.meeting(meetingId);
  await page.goto(adapter.joinUrl(sim.url(platform, meetingId)), { waitUntil: 'domcontentloaded' });
  const inspect = () => adapter.run(page, actions.inspect);
  const memo = new ActionMemo();
  const deadline = Date.now() + timeoutMs;
  let state: PageState<CaptionItem> | null = null;
  // The actions' clock runs ahead by MEMO_STEP_MS a reading: the driver reads the page every 150
  // ms or more and spaces repeated actions for that, this loop sees an action's effect 20 ms on.
  let ahead = 0;
  while (Date.now() < deadline) {
    ahead += MEMO_STEP_MS;
    // A navigation between screens (Teams' launcher to its app) destroys the context mid-reading.
    state = await inspect().catch(() => null);
    if (!state) continue;
    if (screens.at(-1) !== state.screen) screens.push(state.screen);
    const context = { page, state, displayName: DISPLAY_NAME, memo, now: Date.now() + ahead };
    if (state.screen === 'in_call' && state.captionsOn) {
      await adapter.run(page, actions.observe);
      return { page, adapter, reports, inspect };
    }
    if (state.screen === 'lobby') meeting.admit();
    else if (state.screen === 'in_call') await adapter.tendCall(context);
    else await adapter.advanceJoin(context);
    await sleep(20);
  }
  throw new Error(`not in the call with captions on after ${timeoutMs} ms; last reading ${JSON.stringify(state)}`);
}
