/**
 * Bus messages between services: the request and reply of every `svc.<service>.<verb>`.
 * Each owning service parses its requests with these schemas; callers build them from the types.
 * A `caller` is always the authenticated party the gateway saw (SPEC 5: a key sees only its own).
 */
import { z } from 'zod';
import { eventEnvelope } from './events.js';
import { meetingStatus, platform, projectId, transcriptSegment } from './rest.js';

export const caller = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('token'), tokenId: z.string(), capabilities: z.array(z.string()) }),
  z.object({ kind: z.literal('ui'), accountId: z.string() }),
]);

// ---- meetings (meeting-session)

/** svc.meetings.start: the REST body already validated, plus who asks. Reply: startMeetingResponse. */
export const meetingsStart = z.object({
  caller,
  url: z.string(),
  title: z.string().nullable(),
  callbackUrl: z.string().nullable(),
  project: projectId,
  saveTranscript: z.boolean(),
});
/** svc.meetings.stop -> {meetingId, status: 'stopping'}; svc.meetings.get -> meetingRecord. */
export const meetingRef = z.object({ caller, meetingId: z.string() });
/** svc.meetings.status -> {meetings: MeetingSummary[]} (live ones of this caller). */
export const meetingsStatus = z.object({ caller });

/** What meeting-session answers about one meeting (svc.meetings.get). */
export const meetingRecord = z.object({
  meetingId: z.string(),
  status: meetingStatus,
  platform,
  title: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  participantCount: z.number().int(),
  segmentCount: z.number().int(),
  project: z.string(),
  saveTranscript: z.boolean(),
  documentPath: z.string().nullable(),
});
export type MeetingRecord = z.infer<typeof meetingRecord>;

/** svc.meetings.events: a meeting's event log from a sequence on, for consumers catching up. */
export const meetingEventsRequest = z.object({
  meetingId: z.string(),
  afterSequence: z.number().int().min(0),
  limit: z.number().int().min(1).max(1000).default(500),
});
export const meetingEventsReply = z.object({ events: z.array(eventEnvelope) });

// ---- transcripts (transcript-store)

/** svc.transcripts.open: reserve the document path at start. Reply: {documentPath | null}. */
export const transcriptOpen = z.object({
  meetingId: z.string(),
  project: projectId,
  title: z.string().nullable(),
  platform,
  startedAt: z.string(),
  saveTranscript: z.boolean(),
});
/** svc.transcripts.append: idempotent by (meetingId, index). Reply: {stored: boolean}. */
export const transcriptAppend = z.object({
  meetingId: z.string(),
  index: z.number().int().min(0),
  segment: transcriptSegment,
});
/** svc.transcripts.flush: write the document now. Reply: documentSaved (null when not saving). */
export const transcriptFlush = z.object({
  meetingId: z.string(),
  status: z.enum(['in_progress', 'completed']),
  participants: z.array(z.string()),
});
export const documentSaved = z.object({
  documentPath: z.string(),
  segmentsWritten: z.number().int(),
  totalSegments: z.number().int(),
});
/** svc.transcripts.segments -> {segments}; svc.transcripts.document -> {filename, content} | 404. */
export const transcriptRef = z.object({ meetingId: z.string() });

// ---- webhooks (webhook-emitter)

/** svc.webhooks.register: where a meeting's events go and whose secret signs them. */
export const webhookRegister = z.object({
  meetingId: z.string(),
  callbackUrl: z.string(),
  tokenId: z.string().nullable(),
});
