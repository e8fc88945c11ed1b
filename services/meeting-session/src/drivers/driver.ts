/**
 * The platform driver interface: what the meeting actor needs from a bot in a meeting. The Google
 * Meet and Teams drivers implement it on puppeteer-core; tests of the actor use a scripted driver
 * (a stand-in for the meeting platform only).
 *
 * A driver reports through its listener; it never decides the meeting's status itself. Caption
 * finalisation (when a turn is complete) is the driver's job because its timing is per platform.
 */
import type {
  ChatMessage,
  DriverEnd,
  DriverFailure,
  MeetingWarning,
  Platform,
  StorageState,
} from '@notetaker/contracts';
import type { AudioBatch, PcmMessage, SkippedAudio } from '../recording/page-capture.js';
import type { TileLook } from './tile-readings.js';
import type { BotVoice } from '../speech/bot-voice.js';

export interface CaptionUpdate {
  /** Stable per caption turn, so a receiver can replace the partial it showed. */
  captionId: string;
  speaker: string;
  text: string;
  /** ISO 8601 UTC with milliseconds: when this text was seen. */
  timestamp: string;
}

export interface FinalSegment {
  speaker: string;
  text: string;
  /** ISO 8601 UTC with milliseconds: when the turn started. */
  timestamp: string;
}

export interface DriverListener {
  /** Waiting to be admitted. */
  lobby(): void;
  /** In the call (several signs agree), captions being turned on. */
  admitted(): void;
  /** Every change of a caption's text. */
  caption(update: CaptionUpdate): void;
  /** A finished turn: emitted once per turn, never twice for the same words. */
  segment(segment: FinalSegment): void;
  /** The full list of other participants' names whenever it changes (the bot excluded). */
  participants(names: string[]): void;
  /** The meeting ended for the bot (removed, or the host ended it for everyone). */
  ended(reason: DriverEnd): void;
  /**
   * Joining or staying failed; `detail` is for logs, never for callers. A wall the bot cannot pass
   * (a CAPTCHA: bot_detected) comes with `evidence`, what the page looked like, for the operator.
   */
  failed(reason: DriverFailure, detail?: string, evidence?: PageEvidence): void;
  /** The bot cannot read captions (raised), or can again (cleared): see caption-health.ts. */
  warning(change: CaptionWarningChange): void;
  /** Signed in: the identity (name or address) the platform shows for the bot's account. */
  signedIn(identity: string): void;
  /** Recording: about a second of the meeting's audio, encoded in the page. */
  audio(batch: AudioBatch): void;
  /** Recording: the page cannot record audio (why, for the operator); transcription's tap is apart (pcmFailed). */
  audioFailed(detail: string): void;
  /**
   * Recording: audio the page made that could not be read (or never came), one burst of bad
   * slices: the recording lacks that span, and goes on with the audio after it.
   */
  audioSkipped(skip: SkippedAudio): void;
  /** Transcription from audio: 100 ms of one remote track's audio, or word that the track went quiet. */
  pcm(chunk: PcmMessage): void;
  /**
   * Transcription from audio: the page cannot tap the tracks (why, for the operator), or can
   * again (null: the page tries again as tracks come). The recording is not concerned.
   */
  pcmFailed(detail: string | null): void;
  /**
   * How the tiles look (the bot's own left out), at every reading of the page while live: who
   * speaks is learned from them (transcription/speaker-learner.ts). `at`: epoch ms the page was
   * read (a reading handed over late on a busy machine still says when it was taken).
   */
  looks(tiles: TileLook[], at: number): void;
  /** Whether captions are on in the call, whenever that changes while live. */
  captionsOn(on: boolean): void;
  /**
   * Joining: the screen the bot is on, whenever that changes. The join timeout is the actor's, and
   * only the driver knows what it means on this screen (Zoom's "waiting for the host to start this
   * meeting" is meeting_not_started, not join_failed).
   */
  joinProgress?(progress: JoinProgress): void;
  /** A message of the meeting's chat, the bot's own too: once each, in order (page-chat.ts). */
  chat?(message: ChatMessage): void;
}

/** Where a joining bot is, and what the join timeout would be there. */
export interface JoinProgress {
  /** `the not_started screen at app.zoom.us`, `an unknown screen ("Checking your browser") at meet.google.com`. */
  seen: string;
  /** The failure a join timeout on this screen is. */
  onTimeout: DriverFailure;
}

export type CaptionWarningChange =
  | {
      warning: MeetingWarning;
      raised: true;
      /** What was seen, for the operator's log line. */
      seen: string;
      /** The caption area's (or the toolbar's, or the page's) structure: no text, no people's names. */
      snapshot: SnapshotNode[];
      /** join_screen_unknown: a PNG screenshot of the page, written next to the snapshot. */
      screenshot?: Uint8Array;
    }
  | { warning: MeetingWarning; raised: false };

/** What a page looked like: its structure (no text, no people's names) and a PNG screenshot. */
export interface PageEvidence {
  snapshot: SnapshotNode[];
  screenshot?: Uint8Array;
}

export interface SnapshotNode {
  depth: number;
  tag: string;
  attrs: Record<string, string>;
  children: number;
}

export interface JoinTarget {
  platform: Platform;
  url: string;
  meetingId: string;
  displayName: string;
  /** The caption language to select (BCP 47), or null for the platform's default. */
  language?: string | null;
  /** A passcode to type where the platform asks for one (Zoom, a link without pwd); null: none. */
  passcode?: string | null;
  /** Join signed in with this bot account's storage state (in its own browser context), or null as a guest. */
  account?: { name: string; storageState: StorageState } | null;
  /** Capture the meeting's remote audio for a recording (recording/page-capture.ts). */
  recordAudio?: boolean;
  /** Tap each remote audio track for transcription (`DriverListener.pcm`). */
  transcribeAudio?: boolean;
}

export interface MeetingDriver {
  /** Starts joining; resolves once the attempt is under way (progress goes to the listener). */
  start(listener: DriverListener): Promise<void>;
  /** Leaves the call if in it, finalises the turn in progress, and releases every browser resource. */
  leave(): Promise<void>;
  /** Posts `text` in the meeting's chat after the texts asked before; rejects with why it could not. */
  sendChat?(text: string): Promise<void>;
  /** The bot's voice while it is in the call (null otherwise; absent: this driver cannot speak). */
  voice?(): BotVoice | null;
}

export interface DriverFactory {
  create(target: JoinTarget): MeetingDriver;
  /** Releases shared resources (a browser shared by many meetings). */
  close(): Promise<void>;
}
