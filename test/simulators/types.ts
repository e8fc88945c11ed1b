/** The shapes of the simulator: how a meeting is configured, and what it records as ground truth. */
import type { CaptionBlockView, TruthSegment } from './captions.js';

export type SimPlatform = 'google_meet' | 'teams' | 'zoom';
export type BotScreen = 'lobby' | 'in_call' | 'terminal';
export type TerminalScreen = 'denied' | 'no_response' | 'removed' | 'ended' | 'left';

export interface MeetingOptions {
  /** Guests wait to be admitted (default); false lets them straight in ("Join now"). */
  lobby: boolean;
  /** Meet: "Check your meeting code"; Teams: an invalid meeting link; Zoom: "This meeting ID is not valid". */
  notFound: boolean;
  /**
   * Zoom: the meeting's passcode, or null. A link whose pwd carries it (zoomPwd) gets straight in;
   * otherwise the pre-join asks for it, and a wrong one is refused there.
   */
  passcode: string | null;
  /** Zoom: whether the host has started the meeting; false: "Waiting for the host to start this meeting" until start(). */
  started: boolean;
  /**
   * A CAPTCHA for a guest the platform suspects. Zoom: "I'm not a robot" in place of the pre-join;
   * Teams: "Verify you're a real person" (cross-tenant joins), before the pre-join or over it after
   * the Join click (drawn per page load, `captcha`). Never passed: the bot does not get in.
   */
  botWall: boolean;
  /**
   * Teams: the meeting is end-to-end encrypted, which this browser cannot take part in: the call
   * ends in "An encryption error occurred" (data-tid calling-e2ee-end-screen), on admission or a
   * moment into the call (drawn per page load, `e2eeEnd`).
   */
  e2ee: boolean;
  /**
   * Whether people who are not signed in get in. 'refused_screen': the platform's refusal screen
   * (Meet: "You can't join this video call"; Teams: a tenant without anonymous join, "Your
   * organization doesn't allow anonymous users to join this meeting"); 'refused_sign_in': a
   * redirect to the platform's sign-in page (accounts.google.com, login.microsoftonline.com).
   * A signed-in account whose session the platform accepts gets in either way.
   */
  guests: 'allowed' | 'refused_screen' | 'refused_sign_in';
  /**
   * A screen none of the drivers know, shown before the pre-join while true (a browser check, a
   * "getting things ready" page: what a platform may put up one day). Its wording is drawn from
   * the page load's seed (pages/html.ts INTERSTITIALS); the page goes on to the pre-join once
   * the option is set false (sim.meeting(id, {interstitial: false}), or the control API).
   */
  interstitial: boolean;
  /**
   * The platform's join request goes unanswered while true (its backend stuck): the pre-join stays,
   * its Join button pressed, a screen the bot knows and can do nothing on. Set false, the request
   * is answered as usual.
   */
  joinHangs: boolean;
  /** Meet: a pop-up after the join click that must be confirmed. */
  prejoinDialog: 'none' | 'recording' | 'join_anyway';
  /** Meet: a "Got it" pop-up over the call. */
  gotItPopup: boolean;
  /** Meet: false hides the captions button, leaving only the `c` key. */
  captionsButton: boolean;
  /** false: this build offers no way to turn captions on (no button, no key, no menu item). */
  captionsAvailable: boolean;
  /**
   * Whether the host (Meet) or organizer (Teams) lets this meeting have captions (default true);
   * changed mid-meeting with SimMeeting.setCaptionsAllowed. false: the captions control is there
   * but disabled, or gone (drawn per page load, see the pages' `captionsRefused`), captions on
   * are switched off, and speech makes none. Allowed again, captions stay off until turned on.
   */
  captionsAllowed: boolean;
  /**
   * Whether say() also shows its words as captions, growing in step with the audio (default true;
   * never when captionsAvailable or captionsAllowed is false). false: speech only, for tests of the audio alone.
   */
  captionsFromSpeech: boolean;
  /**
   * 'unreadable': captions are shown in a structure no reader knows (Meet: blocks without avatars;
   * Teams: rows without their data-tid attributes), as after a platform change.
   */
  captionMarkup: 'standard' | 'unreadable';
  /** Teams: captions straight under More (guests) or under "Language and speech". */
  teamsCaptionsMenu: 'guest' | 'language';
  /**
   * The caption (spoken) languages the platform offers, named as its English UI names them, the
   * first being the default; null: the platform's own list (MEET_CAPTION_LANGUAGES,
   * TEAMS_CAPTION_LANGUAGES, ZOOM_CAPTION_LANGUAGES).
   */
  captionLanguages: string[] | null;
  /**
   * false: this build has no caption language setting (Meet: no Captions tab; Teams: no "Language
   * settings"; Zoom: no "Speaking language" in its caption settings, no "Translated Captions").
   */
  captionLanguageSettings: boolean;
  /** Teams: media permissions refused, so "Continue without audio or video" must be dismissed. */
  noMediaDialog: boolean;
  teamsLobbyWord: 'soon' | 'shortly';
  /** Caption blocks (Meet) or rows (Teams) kept; older ones go. */
  maxBlocks: number;
  /** Teams: rows the virtualized list renders (its pool of recycled elements). */
  visibleRows: number;
  /** Meet only: once a block holds more words than this, the start of it is dropped (0 never). */
  headDropWords: number;
  /**
   * The seed every page load of this meeting draws its markup from (wrapper elements, class
   * names; see markup.ts); null: SIM_SEED, else a fresh random seed per page load.
   */
  markupSeed: number | null;
  /** Participants whose camera is on: the first this many in the call (video/, call-video.js). Default 0. */
  cameras?: number;
  /** Their cameras' frame rate, 15 to 30. Default 15. */
  cameraFps?: number;
}

export const defaultMeetingOptions: MeetingOptions = {
  lobby: true,
  notFound: false,
  passcode: null,
  started: true,
  botWall: false,
  e2ee: false,
  guests: 'allowed',
  interstitial: false,
  joinHangs: false,
  prejoinDialog: 'none',
  gotItPopup: false,
  captionsButton: true,
  captionsAvailable: true,
  captionsAllowed: true,
  captionsFromSpeech: true,
  captionMarkup: 'standard',
  teamsCaptionsMenu: 'guest',
  captionLanguages: null,
  captionLanguageSettings: true,
  noMediaDialog: false,
  teamsLobbyWord: 'soon',
  maxBlocks: 4,
  visibleRows: 3,
  headDropWords: 0,
  markupSeed: null,
};

/**
 * Meet's caption languages as its English UI names them (Settings -> Captions -> "Meeting
 * language"): a realistic subset of Google's list; Meet names most languages without a region and
 * adds one only where it offers several. Assumed from Google's help pages, not copied from a live
 * page.
 */
export const MEET_CAPTION_LANGUAGES = [
  'English',
  'Afrikaans (South Africa)',
  'Dutch',
  'French',
  'German',
  'Hindi',
  'Indonesian',
  'Italian',
  'Japanese',
  'Korean',
  'Mandarin (Taiwan)',
  'Polish',
  'Portuguese (Brazil)',
  'Portuguese (Portugal)',
  'Russian',
  'Spanish (Mexico)',
  'Spanish (Spain)',
  'Swedish',
  'Thai',
  'Turkish',
  'Ukrainian',
  'Vietnamese',
];

/**
 * Teams' spoken languages for live captions ("Meeting spoken language"), named the Windows way
 * with a region each, from Microsoft's support page ("Korean (Korea)", not Intl's "Korean (South
 * Korea)").
 */
export const TEAMS_CAPTION_LANGUAGES = [
  'English (United States)',
  'English (Canada)',
  'English (India)',
  'English (United Kingdom)',
  'English (Australia)',
  'English (New Zealand)',
  'Arabic (Saudi Arabia)',
  'Chinese (Simplified, China)',
  'Chinese (Traditional, Taiwan)',
  'Czech (Czechia)',
  'Danish (Denmark)',
  'Dutch (Netherlands)',
  'Finnish (Finland)',
  'French (Canada)',
  'French (France)',
  'German (Germany)',
  'Hindi (India)',
  'Italian (Italy)',
  'Japanese (Japan)',
  'Korean (Korea)',
  'Norwegian (Norway)',
  'Polish (Poland)',
  'Portuguese (Brazil)',
  'Portuguese (Portugal)',
  'Russian (Russia)',
  'Spanish (Mexico)',
  'Spanish (Spain)',
  'Swedish (Sweden)',
  'Turkish (Turkey)',
  'Ukrainian (Ukraine)',
];

/**
 * Zoom's languages for automated captions ("Speaking language" in its caption settings), named as
 * its English web client names them: mostly without a region, with one where it offers several
 * ("French (Canada)", "French (France)"). Assumed from Zoom's help pages on automated captions, not
 * copied from a live page.
 */
export const ZOOM_CAPTION_LANGUAGES = [
  'English',
  'Arabic',
  'Cantonese',
  'Chinese (Simplified)',
  'Czech',
  'Danish',
  'Dutch',
  'Finnish',
  'French (Canada)',
  'French (France)',
  'German',
  'Hebrew',
  'Hindi',
  'Italian',
  'Japanese',
  'Korean',
  'Polish',
  'Portuguese',
  'Russian',
  'Spanish',
  'Swedish',
  'Turkish',
  'Ukrainian',
  'Vietnamese',
];

/** Each platform's own caption languages, where a meeting's options name none. */
const CAPTION_LANGUAGES: Record<SimPlatform, string[]> = {
  google_meet: MEET_CAPTION_LANGUAGES,
  teams: TEAMS_CAPTION_LANGUAGES,
  zoom: ZOOM_CAPTION_LANGUAGES,
};

/** The options as a page gets them: the caption languages it offers resolved to a list. */
export function pageOptions(platform: SimPlatform, options: MeetingOptions): MeetingOptions {
  return { ...options, captionLanguages: options.captionLanguages ?? CAPTION_LANGUAGES[platform] };
}

export interface BotRecord {
  guestId: string;
  name: string;
  platform: SimPlatform;
  micOn: boolean;
  camOn: boolean;
  hl: string | null;
  /** The account the bot joined signed in as (its email), or null for a guest. */
  account: string | null;
  screen: BotScreen;
  terminal: TerminalScreen | null;
  captionsOn: boolean;
  /** The caption language this bot selected in the platform's settings (its label), or null: never changed. */
  captionLanguage: string | null;
  requestedAt: string;
  admittedAt: string | null;
  leftAt: string | null;
  /** How the bot went: the platform's leave button, or its page simply disconnecting. */
  leftVia: 'leave_button' | 'disconnected' | null;
  /** Zoom: how the bot answered what came before the call (see ZoomPrejoinAnswers). */
  prejoin?: ZoomPrejoinAnswers;
}

/**
 * Zoom: the bot's answers on the pre-join, as its page reported them with the join: whether it
 * pressed a button that grants microphone and camera ("Allow"), how many permission dialogs it
 * got past, and whether it agreed to the terms and accepted the cookie banner (null: not shown).
 */
export interface ZoomPrejoinAnswers {
  devicesAllowed: boolean;
  permissionDialogs: number;
  termsAgreed: boolean | null;
  cookiesAccepted: boolean | null;
}

/** What Teams writes after a person's name on their tile and caption rows (Meet shows none). */
export const NAME_SUFFIXES = ['Guest', 'External', 'Unverified'] as const;
export type NameSuffix = (typeof NAME_SUFFIXES)[number];

export interface ParticipantRecord {
  id: string;
  name: string;
  /** Teams: "(Guest)", "(External)" or "(Unverified)" after the name, or none. */
  suffix: NameSuffix | null;
  /** Meet: presenting adds a second tile, "<name> (Presentation)". */
  presenting: boolean;
  joinedAt: string;
  leftAt: string | null;
}

export interface PageLoad {
  platform: SimPlatform;
  path: string;
  /** The host the page was loaded from (Zoom: after any redirect between its hosts). */
  host?: string;
  hl: string | null;
  acceptLanguage: string | null;
  userAgent: string | null;
  /** Sec-CH-UA: the brands a Chromium names itself with (a desktop Chrome always sends them over HTTPS). */
  clientHints: string | null;
  /** The seed the page's markup was drawn from: SIM_SEED=<it> replays it. */
  markupSeed: number;
  /** How the page marks the bot's own tile, drawn from the seed (MEET_CHOICES, TEAMS_CHOICES). */
  selfTile: string;
  /** How the page delivers the call's audio over WebRTC, drawn from the seed (see AudioVariation). */
  audio: AudioVariation;
  /** How the page shows who is speaking on their tile, drawn from the seed (the pages' `speakingMark`). */
  speakingMark: string;
  /** How the page shows captions the host turned off (`captionsRefused`: the control disabled or gone). */
  captionsRefused: string;
  /** The account the page was signed in as (email), or null. */
  account?: string | null;
  /** Every simulated account whose session tokens the page carried (isolation checks). */
  sessionsSeen?: string[];
}

/**
 * How a page load delivers the call's audio (drawn from its seed, see the pages' `choices`):
 * - tracks: 'atJoin', every receive track negotiated on entering the call; 'late', each track
 *   only once it is first needed (the first utterance; on Meet, each slot's first speaker).
 * - change, once, just after the first utterance the page played: 'replaceTrack' (each sender
 *   gets a new track, RTCRtpSender.replaceTrack; the receiver's track stays), 'renegotiate' (a new
 *   transceiver per track in a new offer/answer; the audio moves to the new tracks, the old ones
 *   stay and carry silence), 'recreateElement' (every <audio> element removed and a new one made
 *   for the same stream), or 'none'.
 * - elements: where the <audio> elements go: the end of <body>, inside the call screen, or a
 *   hidden container at the start of <body>.
 * - idle: what a track carries while nobody speaks on it: 'silence', or 'paused' (the sending end
 *   stops the moment the speech on it ends, its transceiver inactive in a new offer/answer, so the
 *   receiving track is muted with no pause after the last word; sending again before the next
 *   speech on it).
 */
export interface AudioVariation {
  tracks: 'atJoin' | 'late';
  change: 'none' | 'replaceTrack' | 'renegotiate' | 'recreateElement';
  elements: 'body' | 'call' | 'hidden';
  idle: 'silence' | 'paused';
}

/** The media server's report of playing an utterance to a bot page. */
export interface UtterancePlay {
  guestId: string;
  /**
   * Epoch ms the sound left the media server for the page: the scheduled time, or later (lateMs)
   * when it could not be ready in time (a busy machine, a track still being negotiated); it then
   * plays the whole utterance from there.
   */
  startedAt: number;
  /** How much after the scheduled time it started (0: on time). */
  lateMs: number;
  /** The receive slot it went on (Meet 0-2, least recently used; Teams always 0). */
  slot: number;
  /** The mid of the transceiver that carried it. */
  mid: string | null;
}

/** One thing said aloud in the meeting (say()). */
export interface Utterance {
  id: string;
  speaker: string;
  text: string;
  /** The espeak-ng voice, as its options: "en-us+f2 -p 70 -s 175". */
  voice: string;
  /**
   * Epoch ms the playback was scheduled to begin in every page in the call; a page too busy to
   * start on time starts later (its play's startedAt, below).
   */
  startedAt: number;
  /** The speech's length: there is sound from startedAt to startedAt + durationMs. */
  durationMs: number;
  /** The bots (guest ids) in the call when it was said: the pages that play it, and no others. */
  audience: string[];
  /** What each page reported playing. */
  plays: UtterancePlay[];
  /** The caption block that shows it (truth's segments), or null when said without captions. */
  captionBlockId: number | null;
  /** The audio file the pages fetch. */
  audioUrl: string;
  /** Said with no tile showing it (SayOptions.unseen). */
  unseen?: boolean;
}

/** Something a page's audio did (see AudioVariation), at epoch ms `at`. */
export interface AudioEvent {
  guestId: string;
  event:
    | 'tracks_added'
    | 'track_replaced'
    | 'renegotiated'
    | 'track_paused'
    | 'track_resumed'
    | 'element_recreated'
    | 'ice_connected'
    | 'audio_blocked'
    | 'audio_resumed'
    | 'missed'
    | 'failed';
  at: number;
  detail?: string;
}

export interface GroundTruth {
  meetingId: string;
  segments: TruthSegment[];
  /** Everything said aloud, in order. */
  utterances: Utterance[];
  /** What the pages' audio did (tracks added, replaced, renegotiated...), in order. */
  audioEvents: AudioEvent[];
  participants: ParticipantRecord[];
  bots: BotRecord[];
  pageLoads: PageLoad[];
  endedAt: string | null;
}

export interface GuestView {
  screen: BotScreen;
  terminal: TerminalScreen | null;
  participants: Array<{ id: string; name: string; self: boolean; suffix: NameSuffix | null; presenting: boolean }>;
  captions: CaptionBlockView[];
  /** Whether the host lets the meeting have captions now (MeetingOptions.captionsAllowed). */
  captionsAllowed: boolean;
  /** Utterances this bot's page is to play (those said while it was in the call, until they end). */
  speech: SpeechView[];
}

export interface SpeechView {
  id: string;
  speaker: string;
  url: string;
  /** Epoch ms to start at. */
  startAt: number;
  durationMs: number;
  /** No tile shows it (SayOptions.unseen). */
  unseen?: boolean;
}
