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

/** Reply of svc.transcripts.open. */
export const transcriptOpenReply = z.object({ documentPath: z.string().nullable() });
/** Reply of svc.transcripts.append: false when that (meetingId, index) was stored already. */
export const transcriptAppendReply = z.object({ stored: z.boolean() });

/**
 * svc.transcripts.segments, paged so one reply stays far below NATS' 1 MB payload limit:
 * ask from `fromIndex` (default 0) and follow `nextIndex` until it is null.
 */
export const transcriptSegmentsRequest = transcriptRef.extend({
  fromIndex: z.number().int().min(0).default(0),
});
export const transcriptSegmentsReply = z.object({
  segments: z.array(transcriptSegment),
  nextIndex: z.number().int().nullable(),
});

/**
 * svc.transcripts.document, paged by character offset for the same reason. `version` names the
 * file as first read; asking a later page with a version the file no longer has answers 409
 * `document_changed` (a flush replaced it), and the caller starts again from offset 0.
 * 404 `No saved document for this meeting` when nothing was saved (yet).
 */
export const transcriptDocumentRequest = transcriptRef.extend({
  offset: z.number().int().min(0).default(0),
  version: z.string().optional(),
});
export const transcriptDocumentReply = z.object({
  filename: z.string(),
  documentPath: z.string(),
  content: z.string(),
  version: z.string(),
  nextOffset: z.number().int().nullable(),
});

export const SEARCH_MAX_QUERY_LENGTH = 200;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
/** svc.transcripts.search: saved transcripts of the whole instance, best first. */
export const transcriptSearch = z.object({
  q: z.string().min(1).max(SEARCH_MAX_QUERY_LENGTH),
  project: projectId.optional(),
  limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT),
});
export const searchResult = z.object({
  project: z.string(),
  meetingId: z.string(),
  title: z.string(),
  date: z.string(),
  documentPath: z.string(),
  speaker: z.string(),
  timestamp: z.string(),
  snippet: z.string(),
});
export type SearchResult = z.infer<typeof searchResult>;
/** Reply of svc.transcripts.search, and the body of GET /api/v1/search. */
export const searchResponse = z.object({ results: z.array(searchResult) });

/**
 * Published (not requested) on svc.transcripts.saved after every flush that wrote a document:
 * every transcript-store instance adds the newly written segments to its search index.
 */
export const transcriptSavedNotice = z.object({
  meetingId: z.string(),
  /** Segments with index <= lastIndex are in the document now. */
  lastIndex: z.number().int(),
  /** The instance that wrote it (it has indexed them already). */
  origin: z.string(),
});

// ---- projects (project-catalog)

/** svc.projects.list: {} -> projectsResponse (every project of the instance). */
export const projectsList = z.looseObject({});
/** svc.projects.meetings -> projectMeetingsResponse, newest first; 404 `Project not found`. */
export const projectMeetingsRequest = z.object({ projectId });

// ---- webhooks (webhook-emitter)

/** svc.webhooks.register: where a meeting's events go and whose secret signs them. */
export const webhookRegister = z.object({
  meetingId: z.string(),
  callbackUrl: z.string(),
  tokenId: z.string().nullable(),
});
