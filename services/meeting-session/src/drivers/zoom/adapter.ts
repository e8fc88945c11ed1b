/**
 * Zoom, through its web client, wherever the page draws it (the page, or its iframe#webclient;
 * host redirects are simply followed): the launch page's "Join from your browser" (after "Launch
 * Meeting" where it hides), every pop-up before the call answered by meaning (cookies accepted,
 * the permission dialog answered without microphone and camera, terms agreed), the passcode
 * where the pre-join asks for one (the start's `passcode`; a link's pwd means it never asks), the
 * name, microphone and camera off, "Join"; in the call the audio dialog and banners dismissed, the participants panel opened,
 * captions on, and the full transcript opened for the speakers' names.
 */
import { actions } from '../page-actions.js';
import { zoomScript } from './page-script.js';
import { ClientFrames, clientFrameRunner } from '../client-frame.js';
import { prejoinStep, type PlatformAdapter, type StepContext } from '../platform.js';
import { zoomSelectors } from './selectors.js';
import { ZoomCaptionTracker, type ZoomCaptionLine } from './captions.js';

const frames = new ClientFrames(zoomSelectors.css.clientFrame);
/** A pop-up still there after this many presses is one pressing does not close: the join goes on under it. */
const PRESSES_BEFORE_IGNORING = 3;

export const zoomAdapter: PlatformAdapter<ZoomCaptionLine> = {
  joinUrl(url) {
    return url;
  },

  // The web client is drawn in the page, or in its iframe#webclient: everything runs where it is.
  clientFrame: (page) => frames.of(page),
  run: clientFrameRunner(zoomScript, frames),

  async advanceJoin(step: StepContext<ZoomCaptionLine>) {
    const { page, state, memo, now, passcode } = step;
    if (state.dialog) {
      // Every pop-up is answered before Join (a cookie banner, a permission dialog shown twice, terms).
      const answer = `dialog:${state.dialog}`;
      if (memo.due(answer, now, 1000)) {
        await this.run(page, actions.confirmDialog);
        // A Join pressed under the pop-up (terms come after the first Join) is pressed again once it is gone.
        memo.forget('join');
        return true;
      }
      // Answered a moment ago and still there: it is given time to go, unless pressing it never made it go.
      if (memo.count(answer) < PRESSES_BEFORE_IGNORING) return true;
    }
    if (state.screen === 'launcher') {
      if (memo.due('continue', now, 1500)) await this.run(page, actions.continue);
      return true;
    }
    const asked = state.prejoin?.passcode;
    if (typeof asked === 'string' && passcode && asked !== passcode && memo.due('passcode', now, 1000)) {
      if (await this.run(page, actions.focusPasscode)) await page.keyboard.type(passcode);
      return true;
    }
    return prejoinStep(this, step, () => this.run(page, actions.muteMedia));
  },

  async tendCall({ page, state, memo, now }: StepContext<ZoomCaptionLine>) {
    if (state.dialog && memo.due('dialog', now, 1000)) {
      await this.run(page, actions.confirmDialog);
      return;
    }
    // One click per reading: each opens what the next needs (a menu, then its item).
    if (memo.due('captions', now, 400)) await this.run(page, actions.captionsStep);
  },

  createTracker(emitter, timing) {
    return new ZoomCaptionTracker(emitter, timing.zoomCaptionIdleMs);
  },

  joinFailure(state, { passcode, timedOut }) {
    // Asked for a passcode the start did not give: nothing the bot can type will do.
    if (state.screen === 'prejoin' && typeof state.prejoin?.passcode === 'string' && !passcode)
      return 'passcode_invalid';
    // The host never came: waited on for the whole join timeout.
    if (timedOut && state.screen === 'not_started') return 'meeting_not_started';
    return null;
  },
};
