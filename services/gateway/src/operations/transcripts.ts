/**
 * SPEC 4.1 transcript and document, and search over saved transcripts. Ownership is
 * meeting-session's answer (`routes.meetings.get` is 404 `Not found` for an unknown meeting and for
 * another key's, alike); the content is transcript-store's, read in pages so no single bus
 * message nears NATS' payload limit.
 */
import { z } from 'zod';
import {
  MEETING_ID,
  ServiceError,
  errors,
  meetingRefRequest,
  searchQuery,
  routes,
  searchResponse,
  transcriptRequest,
  transcriptResponse,
  type Caller,
  type MeetingRecord,
  type ReplyOf,
  type TranscriptSegment,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import { count, defineOperation, NOT_OWNED, READ } from './operation.js';

export const NO_DOCUMENT = 'No saved document for this meeting';
/** A transcript of 10^6 segments is far beyond any meeting; a bound keeps a bug from looping. */
const MAX_PAGES = 1000;

export const getTranscript = defineOperation({
  name: 'get_transcript',
  input: transcriptRequest,
  output: transcriptResponse,
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/transcript',
    status: 200,
    tag: 'meetings',
    summary: 'The finalized segments of a live or ended meeting (after an index: only the newer ones)',
    description: 'The transcript',
    errors: { 404: NOT_OWNED },
  },
  tool: {
    title: 'Read a meeting transcript',
    description:
      'The finalized segments of a meeting this API key started, live or ended. Pass `after` (the index of ' +
      'the last segment already read) to get only the newer ones.',
    annotations: READ,
    text: (b) =>
      `Meeting ${b.meetingId} (${b.status}): ${count(b.segments.length, 'segment')}` +
      b.segments.map((s) => `\n${s.speaker}: ${s.text}`).join(''),
  },
  async handler(bus, caller, { meetingId, after }) {
    const meeting = await ownedMeeting(bus, caller, meetingId);
    return {
      meetingId: meeting.meetingId,
      status: meeting.status,
      project: meeting.project,
      documentPath: meeting.documentPath,
      signedInAs: meeting.signedInAs,
      language: meeting.language,
      // transcript-store's word, not the record's: it knows a recording deleted since.
      recording: await call(bus, routes.recordings.get, { meetingId: meeting.meetingId }),
      segments: await segmentsFrom(bus, meeting.meetingId, after === undefined ? 0 : after + 1),
    };
  },
});

/** The saved markdown file of a meeting (REST answers `content` as the body itself). */
export const documentBody = z.object({
  meetingId: z.string(),
  filename: z.string(),
  documentPath: z.string(),
  content: z.string().describe('The markdown document: front matter, then the transcript.'),
});

export const getDocument = defineOperation({
  name: 'get_document',
  input: meetingRefRequest,
  output: documentBody,
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/document',
    status: 200,
    markdown: true,
    tag: 'meetings',
    summary: 'The saved markdown document, as a download',
    description: 'The markdown file',
    errors: { 404: `${NOT_OWNED}; or ${NO_DOCUMENT}` },
  },
  tool: {
    title: 'Read a saved transcript document',
    description: 'The markdown document saved for a meeting this API key started (when saveTranscript was on).',
    annotations: READ,
    text: (b) => b.content,
  },
  async handler(bus, caller, { meetingId }) {
    const meeting = await ownedMeeting(bus, caller, meetingId);
    if (!meeting.saveTranscript) throw errors.notFound(NO_DOCUMENT);
    return { meetingId: meeting.meetingId, ...(await wholeDocument(bus, meeting.meetingId)) };
  },
});

export const searchTranscripts = defineOperation({
  name: 'search_transcripts',
  input: searchQuery,
  output: searchResponse,
  rest: {
    method: 'get',
    path: '/search',
    status: 200,
    tag: 'search',
    summary: 'Search saved transcripts, best first',
    description: 'Results',
    errors: { 503: 'The index is being rebuilt; retry' },
  },
  tool: {
    title: 'Search saved transcripts',
    description: 'Full-text search over the saved transcripts of the instance, best matches first.',
    annotations: READ,
    text: (b) =>
      `${count(b.results.length, 'result')}` +
      b.results.map((r) => `\n- ${r.title}, ${r.speaker}: ${r.snippet}`).join(''),
  },
  handler: (bus, _caller, query) => call(bus, routes.transcripts.search, query),
});

/** The caller's meeting, or 404 `Not found` (a malformed id cannot name any meeting). */
export async function ownedMeeting(bus: Bus, caller: Caller, meetingId: string): Promise<MeetingRecord> {
  if (!MEETING_ID.test(meetingId)) throw errors.notFound();
  return call(bus, routes.meetings.get, { caller, meetingId });
}

async function segmentsFrom(bus: Bus, meetingId: string, firstIndex: number): Promise<TranscriptSegment[]> {
  const segments: TranscriptSegment[] = [];
  let fromIndex: number | null = firstIndex;
  for (let page = 0; fromIndex !== null && page < MAX_PAGES; page++) {
    const reply: ReplyOf<typeof routes.transcripts.segments> = await call(bus, routes.transcripts.segments, {
      meetingId,
      fromIndex,
    });
    segments.push(...reply.segments);
    fromIndex = reply.nextIndex;
  }
  return segments;
}

/**
 * The whole file as one consistent version (REST, MCP and the web's document page): a flush landing
 * between two pages restarts the read. `timeoutMs` bounds each page's request (pages must load fast).
 */
export async function wholeDocument(
  bus: Bus,
  meetingId: string,
  timeoutMs?: number,
): Promise<{ filename: string; documentPath: string; content: string }> {
  const read = (page: { offset: number; version?: string }) =>
    call(bus, routes.transcripts.document, { meetingId, ...page }, timeoutMs ? { timeoutMs } : undefined);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      let page = await read({ offset: 0 });
      const parts = [page.content];
      for (let n = 0; page.nextOffset !== null && n < MAX_PAGES; n++) {
        page = await read({ offset: page.nextOffset, version: page.version });
        parts.push(page.content);
      }
      return { filename: page.filename, documentPath: page.documentPath, content: parts.join('') };
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
