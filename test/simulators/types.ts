/** The shapes of the simulator: how a meeting is configured, and what it records as ground truth. */
import type { CaptionBlockView, TruthSegment } from './captions.js';

export type SimPlatform = 'google_meet' | 'teams';
export type BotScreen = 'lobby' | 'in_call' | 'terminal';
export type TerminalScreen = 'denied' | 'no_response' | 'removed' | 'ended' | 'left';

export interface MeetingOptions {
  /** Guests wait to be admitted (default); false lets them straight in ("Join now"). */
  lobby: boolean;
  /** Meet: "Check your meeting code"; Teams: an invalid meeting link. */
  notFound: boolean;
  /** Meet: "You can't join this video call". */
  cannotJoin: boolean;
  /** Teams: "Continue on this browser" redirects to login.microsoftonline.com. */
  signInRequired: boolean;
  /** Meet: a pop-up after the join click that must be confirmed. */
  prejoinDialog: 'none' | 'recording' | 'join_anyway';
  /** Meet: a "Got it" pop-up over the call. */
  gotItPopup: boolean;
  /** Meet: false hides the captions button, leaving only the `c` key. */
  captionsButton: boolean;
  /** false: this build offers no way to turn captions on (no button, no key, no menu item). */
  captionsAvailable: boolean;
  /**
   * 'unreadable': captions are shown in a structure no reader knows (Meet: blocks without avatars;
   * Teams: rows without their data-tid attributes), as after a platform change.
   */
  captionMarkup: 'standard' | 'unreadable';
  /** Teams: captions straight under More (guests) or under "Language and speech". */
  teamsCaptionsMenu: 'guest' | 'language';
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
}

export const defaultMeetingOptions: MeetingOptions = {
  lobby: true,
  notFound: false,
  cannotJoin: false,
  signInRequired: false,
  prejoinDialog: 'none',
  gotItPopup: false,
  captionsButton: true,
  captionsAvailable: true,
  captionMarkup: 'standard',
  teamsCaptionsMenu: 'guest',
  noMediaDialog: false,
  teamsLobbyWord: 'soon',
  maxBlocks: 4,
  visibleRows: 3,
  headDropWords: 0,
  markupSeed: null,
};

export interface BotRecord {
  guestId: string;
  name: string;
  platform: SimPlatform;
  micOn: boolean;
  camOn: boolean;
  hl: string | null;
  screen: BotScreen;
  terminal: TerminalScreen | null;
  captionsOn: boolean;
  requestedAt: string;
  admittedAt: string | null;
  leftAt: string | null;
  /** How the bot went: the platform's leave button, or its page simply disconnecting. */
  leftVia: 'leave_button' | 'disconnected' | null;
}

export interface ParticipantRecord {
  id: string;
  name: string;
  joinedAt: string;
  leftAt: string | null;
}

export interface PageLoad {
  platform: SimPlatform;
  path: string;
  hl: string | null;
  acceptLanguage: string | null;
  userAgent: string | null;
  /** The seed the page's markup was drawn from: SIM_SEED=<it> replays it. */
  markupSeed: number;
}

export interface GroundTruth {
  meetingId: string;
  segments: TruthSegment[];
  participants: ParticipantRecord[];
  bots: BotRecord[];
  pageLoads: PageLoad[];
  endedAt: string | null;
}

export interface GuestView {
  screen: BotScreen;
  terminal: TerminalScreen | null;
  participants: Array<{ id: string; name: string; self: boolean }>;
  captions: CaptionBlockView[];
}
