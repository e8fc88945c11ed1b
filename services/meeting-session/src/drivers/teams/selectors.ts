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
    /** What the launcher offers: buttons and links. */
    launcherControls: 'button, [role="button"], a[href]',
    /** The name field as builds mark it (a hint: prejoin-form.ts finds it by what it is). */
    nameHint: 'input[data-tid="prejoin-display-name-input"]',
    textInput: 'input[type="text"], input:not([type])',
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
  },
  text: {
    /** The launcher's way into the web app, by its label or its text, in every wording builds have shown. */
    continueOnBrowser: /^(continue on this browser|join (meeting )?(from|on) (this )?browser)$/i,
    /** A text field's name that says it takes a name ("Type your name"). */
    nameField: /\bname\b/i,
    /** Pop-ups to get past: refused media permissions (English, German), tips. */
    dialogConfirm: /^(continue without audio or video|ohne audio oder video fortfahren|got it|dismiss)$/i,
    joinButton: /^join now$/i,
    /** The lobby in every wording builds have shown; "When the meeting starts" is the light-meetings page's. */
    lobby:
      /someone will let you in (soon|shortly)|someone in the meeting should let you in|we've let people in the meeting know you're waiting|waiting to be admitted|when the meeting starts/i,
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
    /**
     * The signed-in app's account button, by its name: "Account manager for <name>", or "Your
     * profile, status Available" with the name on the avatar inside it (Fluent's role=img label).
     */
    accountButton: /^(account manager for\b|your profile\b)/i,
    accountLabel: /^account manager for\s*/i,
    signInHost: /(^|\.)(login\.microsoftonline\.com|login\.live\.com|login\.microsoft\.com)$/i,
    /** Where the light-meetings page sends a browser it will not take: the full app, which never gets to the meeting. */
    fullApp: /[?&#]lightExperience=false\b/i,
  },
  audio: {
    /** Teams' one server mix is the track whose id starts mainAudio; another beside it is redundant. */
    mixTrack: /^mainAudio/,
  },
  terminal: [
    // An end-to-end encrypted call this browser cannot take part in (data-tid calling-e2ee-end-screen).
    ['join_failed', /an encryption error occurred/i],
    // A CAPTCHA for a guest Teams suspects (cross-tenant joins mostly, AT #741): never passed.
    ['bot_detected', /verify (that )?you('re| are) a real person|verify (that )?you('re| are) (a )?human/i],
    // A tenant that turned anonymous join off, or wants a guest verified or signed in first.
    [
      'guest_refused',
      /doesn't allow anonymous users to join|anonymous users can't join this meeting|we need to verify your info before you can join|to join, sign in or use teams on the web|external participants are not permitted to join/i,
    ],
    ['admission_denied', /denied access to the meeting|your request to join was declined/i],
    ['lobby_timeout', /no one responded to your request/i],
    ['removed', /removed from (this|the) meeting|removed you from the meeting/i],
    ['meeting_ended', /the meeting has ended|this meeting has ended|meeting has been ended/i],
    [
      'meeting_not_found',
      /meeting link is invalid|couldn't find (this|the) meeting|this meeting (has expired|no longer exists)|the meeting url is incorrect/i,
    ],
  ] as Array<[DriverFailure | DriverEnd, RegExp]>,
};
