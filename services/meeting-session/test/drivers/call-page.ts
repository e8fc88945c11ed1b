/**
 * A simulated meeting page brought into the call with captions on, by the drivers' own page
 * scripts and join steps (PlatformAdapter.advanceJoin / tendCall) in a tight loop instead of the
 * driver's poll: the page-level variant tests and the caption-reader benchmark open dozens of these
 * on one browser, so each must take a fraction of a second. Caption reports from the page's own
 * observer are collected as they arrive. Also what the variant tests share: a browser on the
 * simulator for a suite, a seed per variant, a meeting of its own per seed, pages side by side.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import {
  describeMarkup,
  seedFromEnv,
  startSimulator,
  variantSeeds,
  type SimMeeting,
  type SimPlatform,
  type Simulator,
} from '../../../../test/simulators/index.js';
import { findChrome } from '@notetaker/find-chrome';
import { chromeArgs } from '../../src/drivers/browser.js';
import type { MeetCaptionBlock } from '../../src/drivers/google-meet/captions.js';
import { actions, CAPTIONS_BINDING } from '../../src/drivers/page-actions.js';
import { bindPage } from '../../src/drivers/page-bindings.js';
import type { PageState } from '../../src/drivers/page-readings.js';
import { ActionMemo, type PlatformAdapter } from '../../src/drivers/platform.js';
import { PLATFORMS } from '../../src/drivers/platforms.js';
import { revealControls } from '../../src/drivers/pointer.js';
import type { TeamsCaptionRow } from '../../src/drivers/teams/captions.js';
import { sleep } from '../../../../test/support/wait.js';

export type CaptionItem = MeetCaptionBlock | TeamsCaptionRow;

export const ADAPTERS: Record<SimPlatform, PlatformAdapter<CaptionItem>> = {
  google_meet: PLATFORMS.google_meet.adapter,
  teams: PLATFORMS.teams.adapter,
  zoom: PLATFORMS.zoom.adapter,
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

/**
 * The simulator and a browser for a suite's pages: started before its tests, closed after them.
 * Given `on` (a suite whose earlier `before` starts a simulator), the browser is on that one instead.
 */
export function pagesOnSimulator(on?: { readonly sim: Simulator }): { sim: Simulator; browser: Browser } {
  const suite = {} as { sim: Simulator; browser: Browser };
  before(async () => {
    suite.sim = on?.sim ?? (await startSimulator());
    suite.browser = await launchBrowser(suite.sim);
  });
  after(async () => {
    await suite.browser?.close();
    if (!on) await suite.sim?.close();
  });
  return suite;
}

/**
 * A meeting id of the platform's own form for the page loads of `seed`, apart for each `use` (a
 * word of three or more lowercase letters) on Meet and Teams; Zoom's is the seed's alone.
 */
export function seededMeetingId(platform: SimPlatform, seed: number, use: string): string {
  if (platform === 'teams') return `19:meeting_${use}${seed}@thread.v2`;
  if (platform === 'zoom') return String(70_000_000_000 + seed);
  // Seven letters of the seed (a 32-bit number), three of the use.
  const letters = Array.from({ length: 7 }, (_, i) => String.fromCharCode(97 + (Math.floor(seed / 26 ** i) % 26)));
  return `${letters.slice(0, 3).join('')}-${letters.slice(3).join('')}-${use.slice(0, 3)}`;
}

/**
 * The seeds of a test that loads a page per variant: SIM_SEED's alone when replaying, else a seed
 * of each of `variants`, which `seedOf` finds from a start on (the starts spread from a fresh seed).
 */
export function seedPerVariant<T>(variants: readonly T[], seedOf: (variant: T, from: number) => number): number[] {
  const replay = seedFromEnv();
  if (replay !== null) return [replay];
  const from = variantSeeds(1)[0];
  return variants.map((variant, i) => seedOf(variant, from + i * 7_919));
}

/** Runs `test` on `count` fresh pages of `browser` (pages side by side), closing them all after. */
export async function withPages<T>(browser: Browser, count: number, test: (pages: Page[]) => Promise<T>): Promise<T> {
  const pages = await Promise.all(Array.from({ length: count }, () => browser.newPage()));
  try {
    return await test(pages);
  } finally {
    await Promise.all(pages.map((page) => page.close()));
  }
}

/** One page load in its own meeting: its seed names it, and its markup, in every failure. */
export class SeededPage {
  call!: CallPage;
  constructor(
    readonly platform: SimPlatform,
    readonly seed: number,
    readonly meeting: SimMeeting,
    readonly page: Page,
  ) {}

  get label(): string {
    return describeMarkup(this.platform, this.seed);
  }
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
  const bound = {
    [CAPTIONS_BINDING]: (json: string) => reports.push((JSON.parse(json) as { items: CaptionItem[] }).items),
  };
  await bindPage(page, bound, (error) => console.error('an unreadable caption report:', error));
  const meeting: SimMeeting = sim.meeting(meetingId);
  const open = () => page.goto(adapter.joinUrl(sim.url(platform, meetingId)), { waitUntil: 'domcontentloaded' });
  await open();
  const inspect = () => adapter.run(page, actions.inspect, { looks: true });
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
    // As the driver does: the link opened again where the platform sent the browser off (PlatformAdapter.startOver).
    if (adapter.startOver?.(state)) {
      await open();
      continue;
    }
    // As the driver does: controls that hide until the pointer moves are shown, and the page read again.
    if (state.controlsHidden) {
      await revealControls(page);
      continue;
    }
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
