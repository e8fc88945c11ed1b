/**
 * BOT_VIDEO_SAVINGS in a meeting's page (settings.ts): the in-page steps installed before the
 * platform loads (install), the platform's own step taken once the bot is in the call with
 * captions on (tend: captions come first, and the same menus carry both), a click per reading.
 */
import type { Frame, Page } from 'puppeteer-core';
import type { Platform } from '@notetaker/contracts';
import { videoPageScript } from './page-script.js';
import { platformVideoStep } from './platform-steps.js';
import type { VideoSaving } from './settings.js';

export {
  DEFAULT_VIDEO_SAVINGS,
  DEFAULT_WINDOW_SIZE,
  VIDEO_SAVINGS,
  type VideoSaving,
  type WindowSize,
} from './settings.js';

/** Clicks towards the platform's step before the bot gives it up (a build without it). */
const MAX_PLATFORM_MOVES = 8;
const MOVE_INTERVAL_MS = 700;
const CAPTIONS_FIRST_MS = 10_000;
const CAPTIONS_SETTLE_MS = 3_000;

export class VideoSavings {
  private moves = 0;
  private lastMove = 0;
  private platformDone: boolean;
  private inCallSince: number | null = null;
  private captionsSince: number | null = null;

  constructor(
    private readonly savings: readonly VideoSaving[],
    private readonly platform: Platform,
  ) {
    this.platformDone = !savings.includes('platform');
  }

  /** Nothing left to do in the call: the platform's step taken, or given up, or not asked for. */
  get settled(): boolean {
    return this.platformDone;
  }

  async install(page: Page): Promise<void> {
    const script = videoPageScript(this.savings);
    if (script) await page.evaluateOnNewDocument(script);
  }

  /**
   * One move of the platform's step, when it is still to do: in the call with no pop-up open, once
   * captions are on (or CAPTIONS_FIRST_MS went by without: a call whose captions never come).
   */
  async tend(
    frame: () => Promise<Frame>,
    state: { captionsOn: boolean; dialog: string | null },
    now: number,
  ): Promise<void> {
    if (this.platformDone || state.dialog || now - this.lastMove < MOVE_INTERVAL_MS) return;
    this.inCallSince ??= now;
    if (!state.captionsOn && now - this.inCallSince < CAPTIONS_FIRST_MS) return;
    // Captions on a moment ago: the driver's own steps after them (Zoom's transcript panel) go first.
    this.captionsSince = state.captionsOn ? (this.captionsSince ?? now) : null;
    if (this.captionsSince !== null && now - this.captionsSince < CAPTIONS_SETTLE_MS) return;
    this.lastMove = now;
    const result = (await (await frame()).evaluate(platformVideoStep(this.platform)).catch(() => null)) as
      boolean | 'wait' | null;
    if (result === 'wait') return;
    if (result !== null || ++this.moves >= MAX_PLATFORM_MOVES) this.platformDone = true;
  }
}
