/**
 * Everything the Microsoft Teams driver recognises on the page, in one place. Meaning first:
 * data-tid attributes, stable element ids, ARIA roles and labels, visible texts. Teams' class names
 * are generated per build and never used. Texts are matched after normalisation (typographic
 * apostrophes and ellipses made ASCII, whitespace collapsed), so patterns are written in ASCII.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import { joinScreens } from '../page-scripts/join-screen-selectors.js';

export const teamsSelectors = {
  /** Join screens by what they are, shared by every platform (join-screens.ts). */
  screens: joinScreens,
  css: {
    continueOnBrowser: '[data-tid="joinOnWeb"]',
    nameInput: 'input[data-tid="prejoin-display-name-input"]',
    micToggle: '[data-tid="toggle-mute"]',
    cameraToggle: '[data-tid="toggle-video"]',
    joinButton: 'button[data-tid="prejoin-join-button"]',
    buttons: 'button, [role="button"]',
    dialogs: '[role="dialog"], [role="alertdialog"]',
    hangup: '#hangup-button, [data-tid="hangup-main-btn"], button[data-tid="call-hangup"]',
    more: '#callingButtons-showMoreBtn, button[aria-label="More"], button[data-tid="more-button"]',
    menuItems: '[role="menuitem"], [role="menuitemcheckbox"], [role="menuitemradio"]',
    captionsWindow: '[data-tid="closed-caption-v2-window-wrapper"], [data-tid="closed-caption-renderer-wrapper"]',
    captionsRenderer: '[data-tid="closed-caption-renderer-wrapper"]',
    captionAuthor: '[data-tid="author"]',
    captionText: '[data-tid="closed-caption-text"]',
    tile: '[data-cid="calling-participant-stream"]',
    /** The caption language: "Language settings", a dialog with the "Meeting spoken language" dropdown. */
    combobox: '[role="combobox"]',
    languageOption: '[role="listbox"] [role="option"]',
    /** The signed-in app's account button; its label is "Account manager for <name>". */
    accountButton: '#idna-me-control-avatar-trigger, [data-tid="me-control-avatar-trigger"]',
  },
  text: {
    continueOnBrowser: /^continue on this browser$/i,
    /** Pop-ups to get past: refused media permissions, tips. */
    dialogConfirm: /^(continue without audio or video|got it|dismiss)$/i,
    joinButton: /^join now$/i,
    lobby:
      /someone will let you in (soon|shortly)|someone in the meeting should let you in|we've let people in the meeting know you're waiting/i,
    /** Guests find captions straight under More; others under "Language and speech". */
    captionsItem: /^(captions|turn on live captions|live captions)$/i,
    languageItem: /^language and speech$/i,
    /** Reached from the captions' own "..." (Captions settings) or from More -> Language and speech. */
    captionsSettings: /^captions settings$/i,
    languageSettingsItem: /^language settings$/i,
    languageDialog: /^language settings$/i,
    languageBox: /^(meeting )?spoken language$/i,
    applyLanguage: /^(update|confirm|save)$/i,
    cancelLanguage: /^cancel$/i,
    /** The bot's own tile: "<name> (You)", "<name> (Guest) (You)" or "You" alone. */
    selfName: /^you$|\(you\)/i,
    /** Labels Teams writes after a person's name, on tiles and as caption authors. */
    nameSuffix: /\s*\((guest|external|unverified)\)$/i,
    accountLabel: /^account manager for\s*/i,
    signInHost: /(^|\.)(login\.microsoftonline\.com|login\.live\.com|login\.microsoft\.com)$/i,
  },
  terminal: [
    // A tenant that turned anonymous join off.
    ['guest_refused', /doesn't allow anonymous users to join|anonymous users can't join this meeting/i],
    ['admission_denied', /denied access to the meeting|your request to join was declined/i],
    ['lobby_timeout', /no one responded to your request/i],
    ['removed', /you've been removed from this meeting|removed you from the meeting/i],
    ['meeting_ended', /the meeting has ended|this meeting has ended|meeting has been ended/i],
    [
      'meeting_not_found',
      /meeting link is invalid|couldn't find (this|the) meeting|this meeting (has expired|no longer exists)/i,
    ],
  ] as Array<[DriverFailure | DriverEnd, RegExp]>,
};
