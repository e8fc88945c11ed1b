/**
 * Microsoft Teams: "Continue on this browser", past the media pop-up, type the name, microphone and
 * camera off, "Join now", then captions on through More -> Captions (guests) or More -> Language
 * and speech -> Turn on live captions, and their spoken language set in "Language settings" if one
 * is asked for.
 */
import type { Page } from 'puppeteer-core';
import { teamsScript } from './page-scripts/teams.js';
import type { PlatformAdapter, StepContext } from './platform.js';
import { TeamsCaptionTracker, type TeamsCaptionRow } from './teams-captions.js';

export const teams: PlatformAdapter<TeamsCaptionRow> = {
  joinUrl(url) {
    return url;
  },

  run<T>(page: Page, action: string, arg?: unknown) {
    return page.evaluate(teamsScript(action, arg)) as Promise<T>;
  },

  async advanceJoin({ page, state, displayName, memo, now }: StepContext<TeamsCaptionRow>) {
    if (state.screen === 'launcher') {
      if (memo.due('continue', now, 3000)) await this.run(page, 'continue');
      return true;
    }
    if (state.dialog && memo.due('dialog', now, 1000)) {
      await this.run(page, 'confirmDialog');
      return true;
    }
    const prejoin = state.prejoin;
    if (!prejoin || state.dialog) return false;
    if (prejoin.name !== null && prejoin.name.trim() !== displayName && memo.due('name', now, 1000)) {
      if (await this.run<boolean>(page, 'focusName')) await page.keyboard.type(displayName);
      return true;
    }
    if ((prejoin.micOn || prejoin.camOn) && memo.due('media', now, 700)) {
      await this.run(page, 'muteMedia');
      return true;
    }
    if (!prejoin.micOn && !prejoin.camOn && prejoin.joinEnabled && memo.due('join', now, 3000)) {
      await this.run(page, 'join');
      return true;
    }
    return false;
  },

  async tendCall({ page, state, memo, now, language }: StepContext<TeamsCaptionRow>) {
    if (state.dialog && memo.due('dialog', now, 1000)) await this.run(page, 'confirmDialog');
    // One menu step per reading: each click opens what the next one needs.
    if (!state.captionsOn && memo.due('captions', now, 400)) await this.run(page, 'captionsStep');
    // The spoken language is set once captions are on (its settings hang off the captions).
    if (state.captionsOn && !state.dialog && language?.pending)
      await language.step((step) => this.run(page, 'languageStep', step), memo, now);
  },

  createTracker(emitter, timing) {
    return new TeamsCaptionTracker(emitter, timing.teamsCaptionIdleMs);
  },
};
