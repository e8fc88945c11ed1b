/**
 * Messages between meeting-session's own parts: the registry (records, claims, event log) and the
 * workers that host meeting actors. Other services never send these; the public verbs
 * (svc.meetings.start|stop|status|get|events) are `routes.meetings` of @notetaker/contracts.
 */
import { z } from 'zod';
import {
  actorMeeting,
  storageState,
  captionLanguage,
  meetingPasscode,
  meetingWarning,
  recordingInfo,
  recordingMode,
  transcriptionMode,
  transcriptSource,
  coachMode,
  meetingStatus,
  platform,
  route,
  signInFailure,
  signInMode,
  type EventEnvelope,
} from '@notetaker/contracts';

/** A batch's JSON text: more than any request NATS carries (1 MB), whatever one event holds. */
const MAX_BATCH_CHARS = 1024 * 1024;

export const subjects = {
  /** registry -> the one actor of a meeting. */
  actorStop: (meetingId: string) => actorMeeting(meetingId, 'stop'),
};

/** worker -> registry, about one of its meetings: the meeting, and the worker that hosts it. */
const workersMeeting = z.object({ meetingId: z.string(), workerId: z.string() });

export const warningsRequest = workersMeeting.extend({ warnings: z.array(meetingWarning) });

/**
 * worker -> registry: a meeting's recording was finished after its actor stopped waiting for it
 * (storage was behind, the worker's spool drained later, or a restarted worker sent what a dead
 * one spooled). The registry appends its `recording_saved` to the meeting's event log, once.
 */
export const recordingSavedRequest = workersMeeting.extend({ recording: recordingInfo });
export type RecordingSavedRequest = z.infer<typeof recordingSavedRequest>;
export const recordingSavedReply = z.object({});
/** The registry stores the warnings (or ignores them: not that worker's meeting any more) and says nothing. */
export const warningsReply = z.object({});

/**
 * A bot account a meeting may join with: the registry took a slot of it. `session` is its storage
 * state (a secret), under the name the workers of every version read.
 */
export const grantedAccount = z.object({ id: z.string(), name: z.string(), session: storageState });

/**
 * worker -> registry: the platform refused the guest (`signedOut` null), or sent the signed-in bot
 * to its sign-in page (`signedOut`: that account). The reply is the next account to join with, or
 * none and the reason the meeting then fails.
 */
export const accountRequest = workersMeeting.extend({ signedOut: z.string().nullable() });
export const accountReply = z.object({
  account: grantedAccount.nullable(),
  reason: signInFailure.nullable(),
});
export type AccountReply = z.infer<typeof accountReply>;

export const placeRequest = z.object({
  meetingId: z.string(),
  platform,
  joinUrl: z.string(),
  title: z.string().nullable(),
  saveTranscript: z.boolean(),
  signIn: signInMode.default('never'),
  language: captionLanguage.nullable().default(null),
  /** A passcode for a link without one (Zoom); handed on, never stored. */
  passcode: meetingPasscode.nullable().default(null),
  /** `signIn: always`: the account the registry took a slot of, with its storage state. */
  account: grantedAccount.nullable().default(null),
  /** Null: the worker resolves it (it holds the model configuration). */
  coach: coachMode.nullable().default(null),
  recording: recordingMode.default('none'),
  transcription: transcriptionMode.default('captions'),
  /** Posted in the chat once the bot is live (the start's announcement); null: BOT_ANNOUNCEMENT's, if any. */
  announcement: z.string().nullable().default(null),
});
export type PlaceRequest = z.infer<typeof placeRequest>;
/** A worker at capacity answers `accepted: false` and the registry asks again (another worker). */
export const placeReply = z.object({ accepted: z.boolean(), workerId: z.string().optional() });
export type PlaceReply = z.infer<typeof placeReply>;

/** The actor's view after the batch: the registry's record is a projection of the stream. */
export const actorState = z.object({
  status: meetingStatus,
  participantCount: z.number().int().min(0),
  segmentCount: z.number().int().min(0),
  /** Every name seen in the meeting so far (for the document's front matter). */
  participants: z.array(z.string()),
  /** The recording so far (null: not recorded, or not started yet). */
  recording: recordingInfo.nullable().default(null),
  /** What the words are read from now (null: not in the call yet). */
  transcriptionSource: transcriptSource.nullable().default(null),
  /** Segments from the audio said by "Unknown": no tile changed while they were said (absent: none). */
  unknownSpeakerSegments: z.number().int().min(0).optional(),
});
export type ActorState = z.infer<typeof actorState>;

/**
 * The recording as far as a change of it is worth a record write: its state, the page's capture,
 * its gaps, and whether audio waits for storage (not every byte stored, which changes each second).
 */
export const recordingKey = (recording: ActorState['recording'] | undefined) =>
  `${recording?.status}|${recording?.capture}|${recording?.gaps.length}|${pendingStep(recording?.pendingBytes ?? 0)}`;

/**
 * Audio waiting for storage, in steps that double from 64 KiB (0: none): the record follows an
 * outage's backlog as it grows and drains, a few writes per outage rather than one per batch.
 */
const pendingStep = (bytes: number) => (bytes <= 0 ? 0 : 1 + Math.max(0, Math.floor(Math.log2(bytes / 65_536))));

/**
 * Consecutive events of one meeting (sequences first..last) as one JSON array text. The worker
 * serializes each event once, when its actor emits it; the registry stores that text as is and
 * the worker publishes the same text, so an event is never encoded twice. The registry trusts the
 * text to hold exactly those events of that meeting: only meeting-session's own workers send it.
 */
const eventBatch = z.object({
  meetingId: z.string(),
  first: z.number().int().min(1),
  last: z.number().int().min(1),
  events: z.string().min(2).max(MAX_BATCH_CHARS),
});
export type EventBatch = z.infer<typeof eventBatch>;
const oneToAThousand = (b: EventBatch) => b.last >= b.first && b.last - b.first < 1000;

/** The batch of a meeting's events as one JSON array text (off the hot path: tests, the registry's own writes). */
export function batchOf(events: EventEnvelope[]): EventBatch {
  return {
    meetingId: events[0].meetingId,
    first: events[0].sequence,
    last: events[events.length - 1].sequence,
    events: JSON.stringify(events),
  };
}

/**
 * One meeting's events in a record request, with its actor's state after them when that changed
 * since the worker's last stored request (always in the worker's first request for the meeting).
 */
export const meetingEvents = eventBatch
  .extend({ state: actorState.optional() })
  .refine(oneToAThousand, { message: 'first..last must span 1 to 1000 events' });
export type MeetingEvents = z.infer<typeof meetingEvents>;

/** A worker's events of all its meetings that are ready together (group commit across actors). */
export const recordRequest = z.object({
  workerId: z.string(),
  meetings: z
    .array(meetingEvents)
    .min(1)
    .max(1000)
    .refine((meetings) => new Set(meetings.map((m) => m.meetingId)).size === meetings.length, {
      message: 'each meeting at most once',
    }),
});
export type RecordRequest = z.infer<typeof recordRequest>;
/** Everything is stored except the meetings named in `fenced`: no longer this worker's to write. */
export const recordReply = z.object({ fenced: z.array(z.string()) });
export type RecordReply = z.infer<typeof recordReply>;

export const heartbeatRequest = z.object({
  workerId: z.string(),
  meetingIds: z.array(z.string()),
  active: z.number().int().min(0),
  capacity: z.number().int().min(0),
  /** Sent once by a worker that stops cleanly: its lease ends now. */
  leaving: z.boolean().optional(),
  /** false: the worker found no browser for its bots (not sent by older workers: they have one). */
  browser: z.boolean().optional(),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequest>;
/** Meetings the worker hosts that are no longer its own (ended by the registry, or unknown). */
export const heartbeatReply = z.object({ release: z.array(z.string()) });
export type HeartbeatReply = z.infer<typeof heartbeatReply>;

/** The request/reply verbs between the registry and the workers, for `call` / `answer` of @notetaker/bus. */
export const protocol = {
  /** registry -> one worker (queue group): host this meeting's actor. */
  place: route('meetings', 'place', placeRequest, placeReply),
  /** worker -> registry: store these events of its meetings (then each actor's events are published). */
  record: route('meetings', 'record', recordRequest, recordReply),
  /** worker -> registry: renew my lease; the reply names actors I must drop. */
  heartbeat: route('meetings', 'heartbeat', heartbeatRequest, heartbeatReply),
  /** worker -> registry: a bot account to join with (guest refused, or the account signed out). */
  account: route('meetings', 'account', accountRequest, accountReply),
  /** worker -> registry: a meeting's caption warnings changed (kept on its record). */
  warnings: route('meetings', 'warnings', warningsRequest, warningsReply),
  /** worker -> registry: a recording finished after its meeting's end (its `recording_saved` comes after `ended`). */
  recordingSaved: route('meetings', 'recording-saved', recordingSavedRequest, recordingSavedReply),
} as const;

export type { EventEnvelope };
