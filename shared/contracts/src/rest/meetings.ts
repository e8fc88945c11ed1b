/** Meetings (docs/api/reference.md#meetings): start, stop, status. */
import { z } from 'zod';
import { isoTimestamp, type EventEnvelope } from '../events.js';
import { projectId } from './projects.js';
import { recordingInfo, recordingMode } from './recordings.js';
import { transcriptionInfo, transcriptionMode } from './transcription.js';
import { chatText } from './chat.js';

export const MEETING_ID = /^meeting_\d{13}_[A-Za-z0-9]{10,}$/;

const httpUrl = (field: string) =>
  z.string({ error: `${field} is required and must be a string` }).refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, `${field} must be an http(s) URL`);

export const captionWarning = z.enum(['captions_unreadable', 'captions_unavailable', 'caption_language_unavailable']);
export type CaptionWarning = z.infer<typeof captionWarning>;
/** What a live meeting's record may warn of: its captions, or its recording's storage. */
export const meetingWarning = z.enum([
  ...captionWarning.options,
  /** Storage does not take the recording's audio: the worker spools it and sends it when storage answers. */
  'recording_unavailable',
  /** The bot's page captures too little audio (short of CPU) or none: the file holds silence there. */
  'recording_capture_degraded',
  /** The speech engine does not answer: speech is marked untranscribed until it does. */
  'transcription_unavailable',
  /** The meeting's budget of audio seconds is spent: no more transcription from audio. */
  'transcription_budget_exhausted',
  /** Joining, the bot has seen a screen it does not recognise for a while; it keeps waiting. */
  'join_screen_unknown',
]);
export type MeetingWarning = z.infer<typeof meetingWarning>;
export const meetingStatus = z.enum(['joining', 'lobby', 'live', 'leaving', 'ended', 'error']);
export type MeetingStatus = z.infer<typeof meetingStatus>;
/** A meeting in one of these is over: its document is final and its event stream has ended. */
export const TERMINAL_STATUSES = ['ended', 'error'] as const satisfies readonly MeetingStatus[];
export const isTerminalStatus = (status: unknown): boolean =>
  (TERMINAL_STATUSES as readonly unknown[]).includes(status);
/** The meeting_status event that ends a meeting's stream. */
export const isFinalStatusEvent = (event: Pick<EventEnvelope, 'type' | 'payload'>): boolean =>
  event.type === 'meeting_status' && isTerminalStatus(event.payload.status);
export const platform = z.enum(['google_meet', 'teams', 'zoom']);
export type Platform = z.infer<typeof platform>;
/** Each platform's name as people read it: `Google Meet`, `Microsoft Teams`, `Zoom` (pages, messages, titles). */
export const PLATFORM_NAMES: Record<Platform, string> = {
  google_meet: 'Google Meet',
  teams: 'Microsoft Teams',
  zoom: 'Zoom',
};

/** The rules of a start's fields, one definition for REST, MCP, the web form and the bus request. */
export const meetingUrl = z.string({ error: 'url is required and must be a string' }).min(1, 'url is required');
export const meetingTitle = z
  .string({ error: 'title must be a string' })
  .max(200, 'title must be at most 200 characters');
export const callbackUrl = httpUrl('callbackUrl');

/** How a bot gets in: as a guest, falling back to a signed-in bot account when guests are refused (auto). */
export const SIGN_IN_MODES = ['auto', 'always', 'never'] as const;
export const signInMode = z.enum(SIGN_IN_MODES, { error: 'signIn must be one of auto, always, never' });
export type SignInMode = z.infer<typeof signInMode>;
/** A BCP 47 language tag as the platforms' caption settings know them: de-DE, es, ja-JP, zh-Hant-TW. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;
export const captionLanguage = z
  .string({ error: 'language must be a string' })
  .regex(LANGUAGE_TAG, 'language must be a BCP 47 language tag such as de-DE, es or ja-JP');
/** A meeting passcode for links that carry none (Zoom asks for it on its pre-join screen). */
export const meetingPasscode = z
  .string({ error: 'passcode must be a string of 1-32 characters' })
  .min(1, 'passcode must be a string of 1-32 characters')
  .max(32, 'passcode must be a string of 1-32 characters');

/**
 * Who coaches a meeting: the rules alone, the rules and a language model beside them (`ai`), or
 * nobody. Unset, meeting-session picks `ai` when it has a model configured, else `rules`.
 */
export const COACH_MODES = ['rules', 'ai', 'off'] as const;
export const coachMode = z.enum(COACH_MODES, { error: 'coach must be one of rules, ai, off' });
export type CoachMode = z.infer<typeof coachMode>;

// The .describe() texts are for the MCP tools' input schemas: a model reads them to fill the fields.
// A default is the schema's: the service that answers gets it filled in, whoever started. A field
// without one is left out when not given: the service then decides (its configuration, the platform).
export const startMeetingRequest = z.strictObject({
  url: meetingUrl.describe('The meeting link: a Google Meet (meet.google.com/...), Microsoft Teams or Zoom URL.'),
  title: meetingTitle.optional().describe('A label for the meeting; it also names the saved transcript document.'),
  callbackUrl: callbackUrl.describe(
    "An http(s) URL that receives every meeting event by POST, signed with the API token's signing secret.",
  ),
  project: projectId
    .default('api')
    .describe(
      'The project to save the transcript into (letters, digits, - and _). Default "api"; created on first save.',
    ),
  saveTranscript: z
    .boolean({ error: 'saveTranscript must be a boolean' })
    .default(true)
    .describe('Save the transcript as a markdown document in the project (default true; needs knowledge:write).'),
  signIn: signInMode
    .default('auto')
    .describe(
      'How the bot joins: "auto" (default) as a guest, signing in with a bot account if guests are refused; "always" signed in; "never" as a guest only.',
    ),
  language: captionLanguage
    .optional()
    .describe(
      "The meeting's spoken language for captions, a BCP 47 tag such as de-DE or ja-JP (default: the platform's).",
    ),
  passcode: meetingPasscode
    .optional()
    .describe("The meeting's passcode, for a Zoom link without one (a passcode in the link's pwd wins)."),
  coach: coachMode
    .optional()
    .describe(
      'coach_insight events: "rules" (talk balance, monologue, pace, unanswered questions), "ai" (the rules and a language model: decisions, action items, objections, risks...), "off" (none). Default "ai" when the service has a model configured, else "rules".',
    ),
  recording: recordingMode
    .optional()
    .describe(
      'Record the meeting\'s audio ("audio", an Ogg Opus file to play back or download) or not ("none"). Default "none" unless the installation sets RECORDING_DEFAULT.',
    ),
  transcription: transcriptionMode
    .default('auto')
    .describe(
      'Where the words come from: "auto" (default) the platform\'s captions while they can be read and the meeting\'s audio through the speech engine while they cannot; "captions" only captions; "audio" only the speech engine (needs STT_BASE_URL on the service).',
    ),
  announcement: chatText('announcement')
    .optional()
    .describe(
      "A notice the bot posts once in the meeting's chat as soon as it is in the call, 1 to 500 characters (default: the installation's BOT_ANNOUNCEMENT, if any).",
    ),
});

export const startMeetingResponse = z.object({
  meetingId: z.string().regex(MEETING_ID),
  status: z.literal('joining'),
  platform,
  project: z.string(),
  documentPath: z.string().nullable(),
});

const meetingIdField = z
  .string({ error: 'meetingId is required and must be a string' })
  .min(1, 'meetingId is required')
  .describe('The meeting id returned by start_meeting, like meeting_1700000000000_AbCdEf1234.');

export const stopMeetingRequest = z.strictObject({ meetingId: meetingIdField });
/** A meeting named in the path (REST) or in the arguments (MCP): transcript, document. */
export const meetingRefRequest = z.strictObject({ meetingId: meetingIdField });
export const stopMeetingResponse = z.object({ meetingId: z.string(), status: z.literal('stopping') });

export const meetingSummary = z.object({
  meetingId: z.string(),
  status: meetingStatus,
  platform,
  title: z.string().nullable(),
  startedAt: isoTimestamp,
  participantCount: z.number().int(),
  segmentCount: z.number().int(),
  project: z.string(),
  documentPath: z.string().nullable(),
  /**
   * Why a live meeting may be transcribing nothing: `captions_unreadable`
   * (the captions change but no text can be read: the platform changed its page) and
   * `captions_unavailable` (captions cannot be turned on). Empty when all is well.
   */
  warnings: z.array(meetingWarning),
  /** The bot account the bot joined with (its name), or null for a guest. */
  signedInAs: z.string().nullable(),
  /** The caption language asked for, or null for the platform's default. */
  language: z.string().nullable(),
  /** The audio recording so far, or null when the meeting is not recorded. */
  recording: recordingInfo.nullable(),
  /** What was asked for and what the words are read from now. */
  transcription: transcriptionInfo,
});
export type MeetingSummary = z.infer<typeof meetingSummary>;
export const meetingStatusResponse = z.object({ meetings: z.array(meetingSummary) });
