/**
 * Bus messages between services: the request and reply of every `svc.<service>.<verb>` that is no
 * capability's (a capability's are its input and output: capabilities/*.ts).
 * Each owning service parses its requests with these schemas; callers build them from the types.
 * A `caller` is always the authenticated party the gateway saw (a key sees only its own meetings:
 * docs/api/reference.md#authentication).
 */
import { z } from 'zod';
import { eventEnvelope } from './events.js';
import { meetingSummary, platform, projectId, recordingGap, recordingInfo, transcriptSegment } from './rest.js';
import { task } from './rest.js';

export const caller = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('token'), tokenId: z.string(), capabilities: z.array(z.string()) }),
  z.object({ kind: z.literal('ui'), accountId: z.string() }),
]);
/** Who made a request: an API token, or the browser UI (which belongs to no key). */
export type Caller = z.infer<typeof caller>;

// ---- meetings (meeting-session)

/** svc.meetings.get -> meetingRecord, the caller's meeting (404 for another's). */
export const meetingRef = z.object({ caller, meetingId: z.string() });

/**
 * What meeting-session answers about one meeting (svc.meetings.get): its summary, as the REST
 * status lists it, with when it ended and whether its transcript is saved.
 */
export const meetingRecord = meetingSummary.extend({
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  saveTranscript: z.boolean(),
});
export type MeetingRecord = z.infer<typeof meetingRecord>;

/**
 * svc.meetings.events: a meeting's event log from a sequence on, for consumers catching up. A reply
 * can hold fewer than `limit` events (it stays under NATS' 1 MB message limit with long captions):
 * ask again after the last one until a reply comes back empty.
 */
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
  /** The caption language asked for (front matter), or null. */
  language: z.string().nullable().default(null),
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
  /** The bot account the bot joined with (front matter), or null for a guest. */
  signedInAs: z.string().nullable().default(null),
});
export const documentSaved = z.object({
  documentPath: z.string(),
  segmentsWritten: z.number().int(),
  totalSegments: z.number().int(),
});
/** A meeting's transcript; the paged requests of svc.transcripts.segments and .document extend it. */
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
export const searchResult = z.object({
  project: z.string(),
  meetingId: z.string(),
  title: z.string(),
  date: z.string(),
  documentPath: z.string(),
  speaker: z.string(),
  timestamp: z.string(),
  snippet: z.string(),
  /** A transcript segment (speaker: who said it), or a message of the meeting's chat (speaker: who wrote it). */
  kind: z.enum(['segment', 'chat']),
});
export type SearchResult = z.infer<typeof searchResult>;
/** The query of GET /api/v1/search (and the search_transcripts tool's arguments): search_transcripts' input. */
export const searchQuery = z.strictObject({
  q: z
    .string({ error: 'q is required and must be a string' })
    .trim()
    .min(1, 'q must not be empty')
    .max(SEARCH_MAX_QUERY_LENGTH, `q must be at most ${SEARCH_MAX_QUERY_LENGTH} characters`)
    .describe('Words to find in saved meeting transcripts.'),
  project: projectId.optional().describe('Only search the transcripts saved in this project.'),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a positive integer')
    .min(1, 'limit must be a positive integer')
    .default(SEARCH_DEFAULT_LIMIT)
    .transform((n) => Math.min(n, SEARCH_MAX_LIMIT))
    .describe(`How many results at most, best first (default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_LIMIT}).`),
});
/** Reply of svc.transcripts.search, and the body of GET /api/v1/search. */
export const searchResponse = z.object({ results: z.array(searchResult) });

/**
 * Broadcast (not requested) on broadcast.transcripts.saved after every flush that wrote a document:
 * every transcript-store instance adds the newly written segments to its search index.
 */
export const transcriptSavedNotice = z.object({
  meetingId: z.string(),
  /** Segments with index <= lastIndex are in the document now. */
  lastIndex: z.number().int(),
  /** The instance that wrote it (it has indexed them already). */
  origin: z.string(),
});

// ---- tasks (task-scheduler; its capabilities are capabilities/tasks.ts)

/**
 * svc.tasks.list -> {tasks, next}: by name, a page at a time so one reply stays far below NATS'
 * 1 MB payload limit with thousands of tasks; ask again with `after: next` until next is null.
 */
export const TASKS_PAGE_MAX = 1000;
export const tasksList = z.object({
  scheduled: z.boolean().optional(),
  after: z.string().optional(),
  limit: z.number().int().min(1).max(TASKS_PAGE_MAX).default(500),
});
export const tasksPage = z.object({ tasks: z.array(task), next: z.string().nullable() });
/**
 * Broadcast (not requested) on broadcast.tasks.changed after every change to a task, to every
 * task-scheduler instance: each re-reads the task and re-arms its timer, and cancels a run of a
 * deleted task.
 */
export const tasksChangedNotice = z.object({ name: z.string(), origin: z.string() });

// ---- webhooks (webhook-emitter)

/** svc.webhooks.register: where a meeting's events go and whose secret signs them. */
export const webhookRegister = z.object({
  meetingId: z.string(),
  callbackUrl: z.string(),
  tokenId: z.string().nullable(),
});
/** svc.webhooks.register reply: `no_key` for a UI meeting (nothing is sent), `gone` after a 410. */
export const webhookRegisterReply = z.object({
  meetingId: z.string(),
  state: z.enum(['active', 'gone', 'no_key']),
});

// svc.webhooks.deliveries is get_deliveries' route (capabilities/deliveries.ts); its reply:
export const deliveryAttempt = z.object({
  at: z.string(),
  deliveryId: z.string(),
  /** HTTP status, or null when no answer came (timeout, refused address, network error). */
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
});
export const deliveryOutcome = z.enum(['pending', 'delivered', 'dead_lettered', 'dropped', 'gone', 'missed']);
export type DeliveryOutcome = z.infer<typeof deliveryOutcome>;
export const deliveryEntry = z.object({
  eventId: z.string(),
  sequence: z.number().int(),
  type: z.string(),
  outcome: deliveryOutcome,
  reason: z.string().nullable(),
  attempts: z.array(deliveryAttempt),
  nextAttemptAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export const webhookDeliveriesReply = z.object({
  meetingId: z.string(),
  callbackUrl: z.string(),
  callbackState: z.enum(['active', 'gone', 'no_key']),
  deliveries: z.array(deliveryEntry),
  /** Pass as afterSequence for the next page; null on the last page. */
  nextAfterSequence: z.number().int().nullable(),
});
export type WebhookDeliveriesReply = z.infer<typeof webhookDeliveriesReply>;

// ---- recordings (transcript-store)

/** The most bytes one recording chunk or read carries on the bus (NATS carries 1 MB; base64 grows 4/3). */
export const RECORDING_MAX_CHUNK_BYTES = 512 * 1024;
const base64Bytes = z
  .string()
  .max(Math.ceil(RECORDING_MAX_CHUNK_BYTES / 3) * 4)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data must be base64');

/**
 * svc.transcripts.recording-append: one batch of a meeting's Ogg file, durable when answered.
 * Its identity is (meetingId, sequence, offset): the worker gives every batch its offset once,
 * when it is made, and a retry sends the same batch at the same offset, so a batch is stored once
 * however late an earlier attempt lands (bytes already stored are acknowledged, never written
 * again). An offset past what is stored is refused (`recording_gap`). `durationMs`: the
 * timeline's length once these bytes are in.
 */
export const recordingAppend = z.object({
  meetingId: z.string(),
  startedAt: z.string(),
  /** The batch's number in the recording, from 0 (for log lines and checks). */
  sequence: z.number().int().min(0).optional(),
  offset: z.number().int().min(0),
  data: base64Bytes,
  durationMs: z.number().int().min(0),
});
export const recordingAppendReply = z.object({ bytes: z.number().int().min(0) });
/**
 * svc.transcripts.recording-finish: the file is complete (idempotent). The status follows: `saved`,
 * `incomplete` when `gaps` are given, `failed` when nothing was stored. `lostAtMs`: the sweep
 * finishes a lost worker's recording, whose timeline reached this far (ms from its start); what
 * storage does not hold up to there becomes a `worker_lost` gap. Null: no recording.
 */
export const recordingFinish = z.object({
  meetingId: z.string(),
  gaps: z.array(recordingGap).max(10_000).optional(),
  lostAtMs: z.number().int().min(0).optional(),
});
/** svc.transcripts.recording: what is stored of a meeting's recording, or null. */
export const recordingRef = z.object({ meetingId: z.string() });
export const recordingReply = recordingInfo.nullable();
/** svc.transcripts.recording-read: bytes [start, end] (inclusive) of what is stored now. */
export const recordingRead = z
  .object({ meetingId: z.string(), start: z.number().int().min(0), end: z.number().int().min(0) })
  .refine((r) => r.end >= r.start && r.end - r.start < RECORDING_MAX_CHUNK_BYTES, 'a read spans at most 512 KiB');
export const recordingReadReply = z.object({ data: base64Bytes });
export const recordingDeleteReply = z.object({ deleted: z.boolean() });
/** svc.transcripts.recording-expire: recordings that started before `before` are deleted. */
export const recordingExpire = z.object({ before: z.string() });
export const recordingExpireReply = z.object({ deleted: z.array(z.string()) });

// ---- calendars (task-scheduler)

/** broadcast.calendars.changed: re-read this calendar (its sync, its schedule). */
export const calendarChangedNotice = z.object({ calendarId: z.string(), origin: z.string() });
