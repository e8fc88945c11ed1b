/**
 * Everything the Zoom driver recognises on the page, in one place: what a pre-join field and
 * button are (ids of the web client's builds as hints only), the caption overlay's id
 * (live-transcription-subtitle), ARIA roles and labels, and visible
 * texts, several wordings each (Zoom words its screens differently by build and locale). Class
 * names only as the field notes' hints (the video tiles). Texts are matched after normalisation
 * (typographic apostrophes and ellipses made ASCII, whitespace collapsed), so patterns are ASCII.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import { joinScreens } from '../page-scripts/join-screen-selectors.js';

export const zoomSelectors = {
  /** Join screens by what they are, shared by every platform (join-screens.ts). */
  screens: joinScreens,
  css: {
    /**
     * The pre-join's fields are its text and password inputs (an input without a type is a text
     * input), told apart by their labels (fieldLabel: aria, <label>, placeholder, the text beside
     * them) or by place; the ids builds have carried (field notes) are hints only: React `#input-for-name`,
     * classic `#inputname`; the passcode is the password input or the field labelled one.
     */
    textInput: 'input:not([type]), input[type="text"], input[type="password"]',
    nameHint: '#input-for-name, #inputname',
    /** The Join button is the button "Join"; React's `button.preview-join-button`, classic `#joinBtn` as hints. */
    joinButton: 'button.preview-join-button, #joinBtn',
    /** React's Join button carries this class until a name is typed with real keys. */
    joinDisabledClass: 'disabled',
    /** OneTrust's cookie banner's accept button, over the classic client's card. */
    cookieHint: '#onetrust-accept-btn-handler',
    /** The iframe some builds draw the whole client in (/wc/<id>/join?fromPWA=1); see client-frame.ts. */
    clientFrame: 'iframe#webclient',
    buttons: 'button, [role="button"]',
    links: 'a[href], [role="link"]',
    dialogs: '[role="dialog"], [role="alertdialog"]',
    menuItems: '[role="menuitem"], [role="menuitemcheckbox"]',
    panels: '[role="complementary"], aside',
    listItems: '[role="listitem"]',
    captionsOverlay: '#live-transcription-subtitle',
    /** Each caption line and transcript entry starts with the speaker's avatar. */
    avatar: 'img',
    /** The transcript's time of day, beside the speaker's name. */
    time: 'time',
    /**
     * The in-call video tiles, for who speaks: the name in each tile's footer, the tile the frame
     * around it (the field notes' class names, as hints: an active speaker's frame is
     * .speaker-active-container__video-frame or .speaker-bar-container__video-frame--active).
     */
    videoTileName: '.video-avatar__avatar-footer',
    videoTile: '[class*="video-frame"]',
    /** The caption language: a dialog with the "Speaking language" dropdown. */
    combobox: '[role="combobox"]',
    languageOption: '[role="listbox"] [role="option"]',
  },
  text: {
    joinFromBrowser: /^join from (your )?(web )?browser$/i,
    launchMeeting: /^launch meeting$/i,
    joinButton: /^join$/i,
    /** The name field's label or placeholder: "Your Name", "Name", "Enter your name", "Display name". */
    nameField: /^((your|display|screen|full) )?name\b|^enter (your )?name\b/i,
    passcodeField: /\b(pass ?code|password)\b/i,
    /**
     * The permission dialog before the call ("Allow" or "Continue without microphone and camera",
     * shown up to twice): the bot always goes on without; a button that grants devices is never pressed.
     */
    withoutDevices: /^continue without (microphone|mic|audio) (and|or) (camera|video)$/i,
    grantsDevices: /^allow\b|^(use|enable|turn on|start) (the )?(microphone|camera|mic)\b/i,
    /** Terms to agree to after the first click on Join: a button beside words about terms. */
    agreeTerms: /^(i agree|agree|accept)$/i,
    termsText: /\bterms of (service|use)\b|\bprivacy (policy|statement)\b/i,
    /** Cookie and consent banners (OneTrust's, or Zoom's own). */
    acceptCookies: /^accept (all )?cookies$/i,
    /** The preview's toggles name what a press would do: "Mute" means the microphone is on. */
    micIsOn: /^mute$/i,
    cameraIsOn: /^stop video$/i,
    leave: /^leave$/i,
    leaveConfirm: /^leave meeting$/i,
    /** Pop-ups to get past: the cookie banner, the audio dialog, notices over the call. */
    dialogConfirm: /^(accept cookies|join audio by computer|join audio|got it|ok|dismiss)$/i,
    participantsButton: /^open the participants list pane/i,
    participantsPanel: /^participants$/i,
    transcriptPanel: /^(transcript|full transcript)$/i,
    /** Captions on: a menu item or a toggle button. */
    showCaptions: /^(show captions|show subtitles|enable captions)$/i,
    /** What opens the captions menu: the CC button itself, or the arrow beside the toggle. */
    captionsMenu: /^(captions|closed captions?|cc|more options for captions|caption options)$/i,
    viewTranscript: /^view full transcript$/i,
    /**
     * The caption language: the captions menu's "Translated Captions" (builds with translation,
     * where "Caption Settings" holds no language) or "Caption Settings", each a dialog with the
     * "Speaking language" dropdown; saved with "Save". The language captions are translated to
     * ("Translate to", "Caption language") is another dropdown, never this one.
     */
    translatedCaptionsItem: /^translated captions$/i,
    captionSettingsItem: /^caption settings\b/i,
    languageDialog: /^(caption settings|translated captions)$/i,
    languageBox: /^(my |meeting )?speaking language$|^spoken language$/i,
    applyLanguage: /^(save|update|done)$/i,
    cancelLanguage: /^(cancel|close)$/i,
    lobby: /meeting host will let you in soon|host will let you in soon|we've let them know you're here|waiting room/i,
    /** The host has not started the meeting: waited on until the join timeout (meeting_not_started). */
    notStarted:
      /waiting for the host to start this meeting|this meeting has not started yet|the host has not started this meeting/i,
    /** The bot's own entry: "Notetaker (me)", "(Me)", "(Guest, me)", "(Host, me)". */
    selfName: /\((?:[^()]*,\s*)?me\)$/i,
    /** Labels Zoom writes after a person's name in the participants panel. */
    nameSuffix: /\s*\((?:co-host|host|guest)(?:,\s*(?:co-host|host|guest))*\)$/i,
    /** The signed-in web client's profile button, by its name ("Profile, <name>"), and the words before the name. */
    accountButton: /^profile\b/i,
    accountLabel: /^profile,?\s*/i,
    /** Zoom's sign-in page is on zoom.us itself: the host and the path together tell it. */
    signInHost: /(?!)/,
    zoomHost: /(^|\.)zoom\.us$/i,
    signInPath: /^\/signin\b/i,
  },
  terminal: [
    // A CAPTCHA or bot wall: reported at once, never retried.
    ['bot_detected', /i'm not a robot|i am not a robot|verify (that )?you are (a )?human|complete the security check/i],
    ['passcode_invalid', /passcode wrong|incorrect (meeting )?passcode|wrong passcode|invalid passcode/i],
    ['meeting_not_found', /meeting id is not valid|invalid meeting id|this meeting (id )?does not exist/i],
    [
      'guest_refused',
      /for authorized attendees only|only signed-in users can join|only authenticated users can join|sign in to join this meeting/i,
    ],
    ['admission_denied', /removed you from the waiting room|denied your request to join/i],
    ['lobby_timeout', /did not admit you in time|no one let you in/i],
    ['removed', /removed from this meeting|host has removed you from the meeting/i],
    ['meeting_ended', /meeting has been ended by (the )?host|this meeting has ended/i],
  ] as Array<[DriverFailure | DriverEnd, RegExp]>,
};
