/** What a platform (Google Meet, Teams) plugs into the shared page driver. */
import type { DriverFailure } from '@notetaker/contracts';
import type { Frame, Page } from 'puppeteer-core';
import type { CaptionEmitter } from './caption-source.js';
import type { CaptionTracker } from './caption-tracker.js';
import { actions, type ArgsOf, type PageAction, type ResultOf } from './page-actions.js';
import type { PageState } from './page-readings.js';

export interface StepContext<Item> {
  page: Page;
  state: PageState<Item>;
  displayName: string;
  /** The meeting's passcode from the start request (JoinTarget), for a pre-join that asks; absent or null: none. */
  passcode?: string | null;
  memo: ActionMemo;
  now: number;
}

export interface TimingSettings {
  meetCaptionIdleMs: number;
  teamsCaptionIdleMs: number;
  zoomCaptionIdleMs: number;
}

export interface PlatformAdapter<Item> {
  /** The URL to open for a join link. */
  joinUrl(url: string): string;
  /**
   * The frame the platform's client is drawn in (client-frame.ts), where its page script runs and
   * its audio is captured; absent: the top page.
   */
  clientFrame?(page: Page): Promise<Frame>;
  /** Runs an action of the page-actions table in the platform's page script. */
  run<Arg, Result>(page: Page, action: PageAction<Arg, Result>, ...arg: ArgsOf<Arg>): Promise<ResultOf<Result, Item>>;
  /** One step towards asking to join; true if it did something. */
  advanceJoin(step: StepContext<Item>): Promise<boolean>;
  /** Keeps the call usable: pop-ups dismissed, captions turned on (the driver then selects their language). */
  tendCall(step: StepContext<Item>): Promise<void>;
  createTracker(emitter: CaptionEmitter, timing: TimingSettings): CaptionTracker<Item>;
  /**
   * A failure only the platform can tell from a reading that is no outcome of its own, before the
   * bot is admitted (Zoom: a passcode asked and none given; the host never came before the join
   * timeout, `timedOut`). Null: go on as usual.
   */
  joinFailure?(state: PageState<Item>, situation: { passcode: string | null; timedOut: boolean }): DriverFailure | null;
  /**
   * Joining, the platform sent the browser where it cannot join from (Teams' lightExperience=false):
   * why, and the driver opens the link again (a few times at most); null: go on.
   */
  startOver?(state: PageState<Item>): string | null;
  /**
   * The id of the track the platform sends its one server mix on, where it names it (Teams'
   * mainAudio-...): another audio track beside it is a redundant copy, left out of the capture.
   */
  mixTrack?: RegExp;
}

/**
 * A platform's `run`: its page script, evaluated in the page. What the page answers is taken to be
 * the action's result as the table types it (the script and the table are kept together by
 * PageHandlers and the driver tests).
 */
export function scriptRunner<Item>(script: (action: string, arg?: unknown) => string): PlatformAdapter<Item>['run'] {
  return (page, action, ...arg) => page.evaluate(script(action.name, arg[0])) as Promise<never>;
}

type Prejoin = NonNullable<PageState<unknown>['prejoin']>;

/**
 * The pre-join screen, alike on both platforms: the name typed, microphone and camera off (by
 * `mute`, the platform's way), then "Join"; true if it did something.
 */
export async function prejoinStep<Item>(
  adapter: Pick<PlatformAdapter<Item>, 'run'>,
  { page, state, displayName, memo, now }: StepContext<Item>,
  mute: (prejoin: Prejoin) => Promise<unknown>,
): Promise<boolean> {
  const prejoin = state.prejoin;
  if (!prejoin) return false;
  if (prejoin.name !== null && prejoin.name.trim() !== displayName && memo.due('name', now, 1000)) {
    if (await adapter.run(page, actions.focusName)) await page.keyboard.type(displayName);
    return true;
  }
  if ((prejoin.micOn || prejoin.camOn) && memo.due('media', now, 700)) {
    // Joining with a live fake device would beep or show a test pattern in someone's meeting.
    await mute(prejoin);
    return true;
  }
  if (!prejoin.micOn && !prejoin.camOn && prejoin.joinEnabled && memo.due('join', now, 3000)) {
    await adapter.run(page, actions.join);
    return true;
  }
  return false;
}

/** Remembers when each page action was last taken, so that a slow page is not clicked twice. */
export class ActionMemo {
  private readonly last = new Map<string, number>();
  private readonly counts = new Map<string, number>();

  /** True, and noted, if `action` was not taken in the last `intervalMs`. */
  due(action: string, now: number, intervalMs: number): boolean {
    const last = this.last.get(action);
    if (last !== undefined && now - last < intervalMs) return false;
    this.last.set(action, now);
    this.counts.set(action, (this.counts.get(action) ?? 0) + 1);
    return true;
  }

  /** `action` may be taken again at once: what held it back (a pop-up over the page) has been answered. */
  forget(action: string): void {
    this.last.delete(action);
  }

  /** How many times `action` was taken. */
  count(action: string): number {
    return this.counts.get(action) ?? 0;
  }
}
