/**
 * SPEC 4.1 transcript and document, and search over saved transcripts. Ownership is
 * meeting-session's answer (`svc.meetings.get` is 404 `Not found` for an unknown meeting and for
 * another key's, alike); the content is transcript-store's, read in pages so no single bus
 * message nears NATS' payload limit.
 */
import type Router from '@koa/router';
import { z } from 'zod';
import {
  MEETING_ID,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  ServiceError,
  errors,
  projectId,
  svc,
  type Caller,
  type MeetingRecord,
  type TranscriptSegment,
  type transcriptDocumentReply,
  type transcriptSegmentsReply,
} from '@notetaker/contracts';
import type { Bus } from '@notetaker/bus';
import { parseInput } from '../http/validate.js';
import { callerOf, type RouteDeps } from './deps.js';

const NO_DOCUMENT = 'No saved document for this meeting';
/** A transcript of 10^6 segments is far beyond any meeting; a bound keeps a bug from looping. */
const MAX_PAGES = 1000;

export const searchQuery = z.strictObject({
  q: z
    .string({ error: 'q is required and must be a string' })
    .trim()
    .min(1, 'q must not be empty')
    .max(SEARCH_MAX_QUERY_LENGTH, `q must be at most ${SEARCH_MAX_QUERY_LENGTH} characters`),
  project: projectId.optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a positive integer')
    .min(1, 'limit must be a positive integer')
    .default(SEARCH_DEFAULT_LIMIT)
    .transform((n) => Math.min(n, SEARCH_MAX_LIMIT)),
});

export function transcriptRoutes(router: Router, { bus }: RouteDeps): void {
  router.get('/meetings/:meetingId/transcript', async (ctx) => {
    const meeting = await ownedMeeting(bus, callerOf(ctx), ctx.params.meetingId);
    ctx.body = {
      meetingId: meeting.meetingId,
      status: meeting.status,
      project: meeting.project,
      documentPath: meeting.documentPath,
      segments: await allSegments(bus, meeting.meetingId),
    };
  });

  router.get('/meetings/:meetingId/document', async (ctx) => {
    const meeting = await ownedMeeting(bus, callerOf(ctx), ctx.params.meetingId);
    if (!meeting.saveTranscript) throw errors.notFound(NO_DOCUMENT);
    const { filename, content } = await wholeDocument(bus, meeting.meetingId);
    ctx.set('Content-Disposition', contentDisposition(filename));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = content;
  });

  router.get('/search', async (ctx) => {
    const query = parseInput(searchQuery, ctx.query);
    ctx.body = await bus.request(svc('transcripts', 'search'), query);
  });
}

/** The caller's meeting, or 404 `Not found` (a malformed id cannot name any meeting). */
async function ownedMeeting(bus: Bus, caller: Caller, meetingId: string): Promise<MeetingRecord> {
  if (!MEETING_ID.test(meetingId)) throw errors.notFound();
  return bus.request<MeetingRecord>(svc('meetings', 'get'), { caller, meetingId });
}

async function allSegments(bus: Bus, meetingId: string): Promise<TranscriptSegment[]> {
  const segments: TranscriptSegment[] = [];
  let fromIndex: number | null = 0;
  for (let page = 0; fromIndex !== null && page < MAX_PAGES; page++) {
    const reply: z.infer<typeof transcriptSegmentsReply> = await bus.request(svc('transcripts', 'segments'), {
      meetingId,
      fromIndex,
    });
    segments.push(...reply.segments);
    fromIndex = reply.nextIndex;
  }
  return segments;
}

/** The file as one consistent version: a flush landing between two pages restarts the read. */
async function wholeDocument(bus: Bus, meetingId: string): Promise<{ filename: string; content: string }> {
  type Page = z.infer<typeof transcriptDocumentReply>;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      let page: Page = await bus.request(svc('transcripts', 'document'), { meetingId, offset: 0 });
      const parts = [page.content];
      for (let n = 0; page.nextOffset !== null && n < MAX_PAGES; n++) {
        page = await bus.request(svc('transcripts', 'document'), {
          meetingId,
          offset: page.nextOffset,
          version: page.version,
        });
        parts.push(page.content);
      }
      return { filename: page.filename, content: parts.join('') };
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'document_changed')) throw err;
    }
  }
  throw errors.unavailable('The document is being rewritten; try again');
}

/**
 * `attachment` with the file name (RFC 6266): an ASCII `filename` for old clients, and
 * `filename*` in UTF-8 (RFC 8187) whenever the name is not plain ASCII.
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const header = `attachment; filename="${fallback}"`;
  if (fallback === filename) return header;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}
