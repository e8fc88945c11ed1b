/**
 * Microsoft Teams: "Continue on this browser", past the media pop-up, type the name, microphone and
 * camera off, "Join now", then captions on through More -> Captions (guests) or More -> Language
 * and speech -> Turn on live captions, and their spoken language set in "Language settings" if one
 * is asked for.
 */
import { actions } from '../page-actions.js';
import { teamsScript } from './page-script.js';
import { teamsSelectors } from './selectors.js';
import { prejoinStep, scriptRunner, type PlatformAdapter, type StepContext } from '../platform.js';
import { TeamsCaptionTracker, type TeamsCaptionRow } from './captions.js';

export const teamsAdapter: PlatformAdapter<TeamsCaptionRow> = {
  joinUrl(url) {
    return url;
  },

  run: scriptRunner(teamsScript),

  /** The one server mix comes on a track named for it; a track beside it is a redundant copy (VX teams-main-audio.ts). */
  mixTrack: teamsSelectors.audio.mixTrack,

  /** The light-meetings page may send a browser on to the full app (lightExperience=false), which never gets in: AT #904 retries. */
  startOver(state) {
    return teamsSelectors.text.fullApp.test(state.url)
      ? 'Teams sent the browser to its full app (lightExperience=false)'
      : null;
  },

  async advanceJoin(step: StepContext<TeamsCaptionRow>) {
    const { page, state, memo, now } = step;
    if (state.screen === 'launcher') {
      if (memo.due('continue', now, 3000)) await this.run(page, actions.continue);
      return true;
    }
    if (state.dialog && memo.due('dialog', now, 1000)) {
      await this.run(page, actions.confirmDialog);
      return true;
    }
    // A pop-up still open (its button pressed a moment ago) covers the pre-join screen.
    if (state.dialog) return false;
    return prejoinStep(this, step, () => this.run(page, actions.muteMedia));
  },

  async tendCall({ page, state, memo, now }: StepContext<TeamsCaptionRow>) {
    if (state.dialog && memo.due('dialog', now, 1000)) await this.run(page, actions.confirmDialog);
    // One menu step per reading: each click opens what the next one needs.
    if (!state.captionsOn && memo.due('captions', now, 400)) await this.run(page, actions.captionsStep);
  },

  createTracker(emitter, timing) {
    return new TeamsCaptionTracker(emitter, timing.teamsCaptionIdleMs);
  },
};
