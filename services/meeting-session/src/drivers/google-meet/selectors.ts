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
    nameInput: 'input[aria-label="Your name"]',
    /** The fallback: the lone visible text input of the pre-join screen. */
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
    /** Google's account button on every signed-in page; its label is "Google Account: <name> (<email>)". */
    accountButton: '[aria-label^="Google Account:"]',
    icons: 'i, .google-material-icons, .material-icons-extended',
    /** The caption language: More options -> Settings -> the Captions tab -> "Meeting language". */
    moreOptions: 'button[aria-label="More options"], [role="button"][aria-label="More options"]',
    menuItems: '[role="menuitem"]',
    unselectedTab: '[role="tab"]:not([aria-selected="true"])',
    combobox: '[role="combobox"]',
    languageOption: '[role="listbox"] [role="option"]',
  },
  text: {
    joinButton: /^(ask to join|join now)$/i,
    /** Pop-ups to confirm while joining or in the call (recording notice, warnings, tips). */
    dialogConfirm: /^(join now|join anyway|got it|dismiss|continue)$/i,
    lobby: /asking to be let in|you'll join the call when someone lets you in/i,
    signInHost: /^accounts\.google\.com$/i,
    accountLabel: /^Google Account:\s*/i,
    /** The bot's own tile without a marker: its name shown as "You" or "<name> (You)". */
    selfName: /^you$|\(you\)/i,
    /** Labels Meet writes after a name: a presenter's second tile is "<name> (Presentation)". */
    nameSuffix: /\s*\(presentation\)$/i,
    presentationTile: /\(presentation\)$/i,
    /** Names (aria-label, aria-labelledby, else the text without icons) along the caption language's path. */
    settingsItem: /^settings$/i,
    settingsDialog: /^settings$/i,
    captionsTab: /^captions$/i,
    languageBox: /^(meeting language|language of the meeting)$/i,
    closeDialog: /^close( dialog)?$/i,
    leaveIcon: /^call_end$/,
    captionsOffIcon: /^closed_caption_off$/,
  },
  /** End screens, most specific first: the denial screen also says "You can't join this call". */
  terminal: [
    ['admission_denied', /someone in the call denied your request to join|denied your request to join/i],
    ['lobby_timeout', /no one responded/i],
    ['removed', /you've been removed from the meeting|you have been removed from the meeting/i],
    ['meeting_ended', /your host ended the meeting for everyone|the meeting has ended for everyone/i],
    ['meeting_not_found', /check your meeting code|invalid video call name/i],
    // What a guest sees where the organization admits no one who is not signed in.
    ['guest_refused', /you can't join this video call/i],
    // Meet's own way out when the bot is left alone; the bot's own leave is never read back.
    ['meeting_ended', /you left the meeting/i],
  ] as Array<[DriverFailure | DriverEnd, RegExp]>,
};
