/**
 * Google Meet: open the link with the UI pinned to English, type the name, turn microphone and
 * camera off, ask to join (confirming pop-ups on the way), then turn captions on with the button
 * or the `c` key, and select their language (More options -> Settings -> Captions) if one is asked for.
 */
import { MeetCaptionTracker, type MeetCaptionBlock } from './captions.js';
import { actions } from '../page-actions.js';
import { meetScript } from './page-script.js';
import { prejoinStep, scriptRunner, type PlatformAdapter, type StepContext } from '../platform.js';

export const googleMeetAdapter: PlatformAdapter<MeetCaptionBlock> = {
  joinUrl(url) {
    const target = new URL(url);
    target.searchParams.set('hl', 'en');
    return target.toString();
  },

  run: scriptRunner(meetScript),

  async advanceJoin(step: StepContext<MeetCaptionBlock>) {
    const { page, state, memo, now } = step;
    if (state.dialog && memo.due('dialog', now, 1000)) {
      await this.run(page, actions.confirmDialog);
      return true;
    }
    return prejoinStep(this, step, async (prejoin) => {
      if (memo.count('media') <= 2) return this.run(page, actions.muteMedia);
      // The toggles did not take a click: Meet's shortcuts (ctrl+d, ctrl+e) do the same.
      await this.run(page, actions.blur);
      await page.keyboard.down('Control');
      if (prejoin.micOn) await page.keyboard.press('d');
      if (prejoin.camOn) await page.keyboard.press('e');
      await page.keyboard.up('Control');
    });
  },

  async tendCall({ page, state, memo, now }: StepContext<MeetCaptionBlock>) {
    if (state.dialog && memo.due('dialog', now, 1000)) await this.run(page, actions.confirmDialog);
    if (state.captionsOn || !memo.due('captions', now, 1500)) return;
    if (await this.run(page, actions.captionsButton)) return;
    // No captions button in reach (narrow layouts hide it): Meet's shortcut does the same.
    await this.run(page, actions.blur);
    await page.keyboard.press('c');
  },

  createTracker(emitter, timing) {
    return new MeetCaptionTracker(emitter, timing.meetCaptionIdleMs);
  },
};
