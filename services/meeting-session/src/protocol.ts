/**
 * Messages between meeting-session's own parts: the registry (records, claims, event log) and the
 * workers that host meeting actors. Other services never send these; the public verbs
 * (svc.meetings.start|stop|status|get|events) are in @notetaker/contracts messages.ts.
 */
import { z } from 'zod';
import { actorMeeting, eventEnvelope, meetingStatus, platform, svc, type EventEnvelope } from '@notetaker/contracts';

export const subjects = {
  /** registry -> one worker (queue group): host this meeting's actor. */
  place: svc('meetings', 'place'),
  /** worker -> registry: store these events of one meeting (then the actor publishes them). */
  record: svc('meetings', 'record'),
  /** worker -> registry: renew my lease; the reply names actors I must drop. */
  heartbeat: svc('meetings', 'heartbeat'),
  /** registry -> the one actor of a meeting. */
  actorStop: (meetingId: string) => actorMeeting(meetingId, 'stop'),
};

export const placeRequest = z.object({
  meetingId: z.string(),
  platform,
  joinUrl: z.string(),
  title: z.string().nullable(),
  saveTranscript: z.boolean(),
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
});
export type ActorState = z.infer<typeof actorState>;

export const recordRequest = z.object({
  meetingId: z.string(),
  workerId: z.string(),
  events: z.array(eventEnvelope).min(1).max(1000),
  state: actorState,
});
export type RecordRequest = z.infer<typeof recordRequest>;
export type RecordReply = { stored: number };

export const heartbeatRequest = z.object({
  workerId: z.string(),
  meetingIds: z.array(z.string()),
  active: z.number().int().min(0),
  capacity: z.number().int().min(0),
  /** Sent once by a worker that stops cleanly: its lease ends now. */
  leaving: z.boolean().optional(),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequest>;
/** Meetings the worker hosts that are no longer its own (ended by the registry, or unknown). */
export type HeartbeatReply = { release: string[] };

export const FENCED_CODE = 'meeting_closed';

export type { EventEnvelope };
