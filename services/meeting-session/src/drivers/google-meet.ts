/**
 * Google Meet: open the link with the UI pinned to English, type the name, turn microphone and
 * camera off, ask to join (confirming pop-ups on the way), then turn captions on with the button
 * or the `c` key, and select their language (More options -> Settings -> Captions) if one is asked for.
 */
import type { Page } from 'puppeteer-core';
import { MeetCaptionTracker, type MeetCaptionBlock } from './meet-captions.js';
import { meetScript } from './page-scripts/google-meet.js';
import type { PlatformAdapter, StepContext } from './platform.js';

export const googleMeet: PlatformAdapter<MeetCaptionBlock> = {
  joinUrl(url) {
    const target = new URL(url);
    target.searchParams.set('hl', 'en');
    return target.toString();
  },

  run<T>(page: Page, action: string, arg?: unknown) {
    return page.evaluate(meetScript(action, arg)) as Promise<T>;
  },

  async advanceJoin({ page, state, displayName, memo, now }: StepContext<MeetCaptionBlock>) {
    if (state.dialog && memo.due('dialog', now, 1000)) {
      await this.run(page, 'confirmDialog');
      return true;
    }
    const prejoin = state.prejoin;
    if (!prejoin) return false;
    if (prejoin.name !== null && prejoin.name.trim() !== displayName && memo.due('name', now, 1000)) {
      if (await this.run<boolean>(page, 'focusName')) await page.keyboard.type(displayName);
      return true;
    }
    if ((prejoin.micOn || prejoin.camOn) && memo.due('media', now, 700)) {
      // Joining with a live fake device would beep or show a test pattern in someone's meeting.
      if (memo.count('media') <= 2) await this.run(page, 'muteMedia');
      else {
        // The toggles did not take a click: Meet's shortcuts (ctrl+d, ctrl+e) do the same.
        await this.run(page, 'blur');
        await page.keyboard.down('Control');
        if (prejoin.micOn) await page.keyboard.press('d');
        if (prejoin.camOn) await page.keyboard.press('e');
        await page.keyboard.up('Control');
      }
      return true;
    }
    if (!prejoin.micOn && !prejoin.camOn && prejoin.joinEnabled && memo.due('join', now, 3000)) {
      await this.run(page, 'join');
      return true;
    }
    return false;
  },

  async tendCall({ page, state, memo, now, language }: StepContext<MeetCaptionBlock>) {
    if (state.dialog && memo.due('dialog', now, 1000)) await this.run(page, 'confirmDialog');
    // The caption language is chosen among the languages captions can be in: with captions on.
    if (state.captionsOn && !state.dialog && language?.pending)
      await language.step((step) => this.run(page, 'languageStep', step), memo, now);
    if (state.captionsOn || !memo.due('captions', now, 1500)) return;
    if (await this.run<boolean>(page, 'captionsButton')) return;
    // No captions button in reach (narrow layouts hide it): Meet's shortcut does the same.
    await this.run(page, 'blur');
    await page.keyboard.press('c');
  },

  createTracker(emitter, timing) {
    return new MeetCaptionTracker(emitter, timing.captionIdleMs);
  },
};
