/**
 * Everything the Google Meet driver recognises on the page, in one place. Meaning first: ARIA
 * roles and labels, data attributes, visible texts and icon names. Meet's class names are
 * generated per build and never used. Texts are matched after normalisation (typographic
 * apostrophes and ellipses made ASCII, whitespace collapsed), so patterns are written in ASCII.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import { joinScreens } from '../page-scripts/join-screen-selectors.js';

export const meetSelectors = {
  /** Join screens by what they are, shared by every platform (join-screens.ts). */
  screens: joinScreens,
  css: {
    /** The name field as builds since 2025 mark it (a hint: prejoin-form.ts finds it by what it is). */
    nameHint: 'input[type="text"][aria-label="Your name"]',
    textInput: 'input[type="text"], input:not([type])',
    buttons: 'button, [role="button"]',
    dialogs: '[role="dialog"], [role="alertdialog"]',
    micIsOn: '[aria-label^="Turn off microphone"]',
    cameraIsOn: '[aria-label^="Turn off camera"]',
    leaveCall: 'button[aria-label="Leave call"], [role="button"][aria-label="Leave call"]',
    captionsAreOff: 'button[aria-label^="Turn on captions"], [role="button"][aria-label^="Turn on captions"]',
    captionsAreOn: 'button[aria-label^="Turn off captions"], [role="button"][aria-label^="Turn off captions"]',
    captionsRegion: 'div[role="region"][aria-label="Captions"]',
    /** Each caption block starts with the speaker's avatar; its header holds the name. */
    captionAvatar: 'img',
    tile: '[data-participant-id]',
    /** notranslate is Google Translate's opt-out class, set on names on purpose, not generated. */
    tileName: 'span.notranslate',
    /** Marks the bot's own tile, on the tile element itself or on an element inside it. */
    selfTile: '[data-self-name]',
    icons: 'i, .google-material-icons, .material-icons-extended',
    /** The caption language: More options -> Settings -> the Captions tab -> "Meeting language". */
    moreOptions: 'button[aria-label="More options"], [role="button"][aria-label="More options"]',
    menuItems: '[role="menuitem"]',
    unselectedTab: '[role="tab"]:not([aria-selected="true"])',
    combobox: '[role="combobox"]',
    languageOption: '[role="listbox"] [role="option"]',
  },
  text: {
    /** A text field's name that says it takes a name ("Your name"); another language's is found by position. */
    nameField: /\bname\b/i,
    /**
     * The join button, in every wording builds have shown: asked, open meetings, warnings passed,
     * and, signed in on another device, "Join here too" / "Switch here". Never "Other ways to join".
     */
    joinButton: /^(ask to join( anyway)?|join( now| the call now| anyway| here too)|switch here)$/i,
    /**
     * Pop-ups to confirm while joining or in the call, never by leaving: devices refused (English,
     * German), no account, the recording, transcription and note-taking notices ("Gemini is taking
     * notes" offers Leave and Join now), tips.
     */
    dialogConfirm:
      /^(join now|join anyway|ask to join anyway|got it|dismiss|ok|continue|continue without microphone and camera|ohne mikrofon und kamera fortfahren|use without an account)$/i,
    /** The asking screen, whose "Return to home screen" button is no refusal. */
    lobby:
      /asking to be let in|you'll join the call when someone lets you in|please wait until a meeting host brings you into the call|waiting for the host to (let you in|join)/i,
    signInHost: /^accounts\.google\.com$/i,
    /** Google's account button on every signed-in page, by its name "Google Account: <name> (<email>)". */
    accountButton: /^google account:/i,
    accountLabel: /^Google Account:\s*/i,
    /** The bot's own tile without a marker: its name shown as "You" or "<name> (You)". */
    selfName: /^you$|\(you\)/i,
    /** Labels Meet writes after a name: a presenter's second tile is "<name> (Presentation)". */
    nameSuffix: /\s*\(presentation\)$/i,
    presentationTile: /\(presentation\)$/i,
    /**
     * The self-view's effects panel, which carries a participant id too, in the pre-join, the lobby
     * and the call (VX): its name leads with the visual_effects icon or says "Backgrounds and effects".
     */
    effectsPanel: /^(visual_effects\s*)?backgrounds and effects\b/i,
    /** Names (aria-label, aria-labelledby, else the text without icons) along the caption language's path. */
    settingsItem: /^settings$/i,
    languageDialog: /^settings$/i,
    captionsTab: /^captions$/i,
    languageBox: /^(meeting language|language of the meeting)$/i,
    /** Meet applies a pick at once: applied or not, the settings dialog is only closed. */
    applyLanguage: /^close( dialog)?$/i,
    cancelLanguage: /^close( dialog)?$/i,
    leaveIcon: /^call_end$/,
    captionsOffIcon: /^closed_caption_off$/,
  },
  /**
   * End screens, most specific first: the denial and no-answer screens both head "You can't join
   * this call", which alone (with "Ask to join again") is a denial.
   */
  terminal: [
    ['admission_denied', /denied your request to join/i],
    ['lobby_timeout', /no one responded/i],
    ['admission_denied', /you can't join this call\b/i],
    [
      'removed',
      /you've been removed from the meeting|you have been removed from the meeting|you were removed from the meeting|you can't rejoin this meeting|someone removed you from the call/i,
    ],
    [
      'meeting_ended',
      /(your|the) host ended the (meeting|call) for everyone|the meeting has ended|the host has ended the meeting/i,
    ],
    [
      'meeting_not_found',
      /check your meeting code|invalid video call name|your meeting code has expired|the meeting code you entered doesn't work/i,
    ],
    // What a guest sees where the organization admits no one who is not signed in (signing in is the way in).
    ['guest_refused', /you can't join this video call|there is a problem connecting to this video call/i],
    // Meet's own way out when the bot is left alone; the bot's own leave is never read back.
    ['meeting_ended', /you left the meeting/i],
  ] as Array<[DriverFailure | DriverEnd, RegExp]>,
};
