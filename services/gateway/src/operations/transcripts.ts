/**
 * A meeting's transcript and document (capabilities/transcripts.ts), composed here: ownership is
 * meeting-session's answer (`routes.meetings.get` is 404 `Not found` for an unknown meeting and for
 * another key's, alike); the content is transcript-store's, read in pages so no single bus
 * message nears NATS' payload limit. Search is transcript-store's alone, on its route.
 */
import {
  MEETING_ID,
  NO_DOCUMENT,
  ServiceError,
  errors,
  getDocument as getDocumentCapability,
  getTranscript as getTranscriptCapability,
  routes,
  searchTranscripts as searchTranscriptsCapability,
  type Caller,
  type MeetingRecord,
  type ReplyOf,
  type TranscriptSegment,
} from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import { currentRecording } from './current-recording.js';
import { composed, forwarded } from './operation.js';

export { documentBody } from '@notetaker/contracts';

/** A transcript of 10^6 segments is far beyond any meeting; a bound keeps a bug from looping. */
const MAX_PAGES = 1000;

export const getTranscript = composed(getTranscriptCapability, async (bus, caller, { meetingId, after }) => {
  const meeting = await ownedMeeting(bus, caller, meetingId);
  return {
    meetingId: meeting.meetingId,
    status: meeting.status,
    project: meeting.project,
    documentPath: meeting.documentPath,
    signedInAs: meeting.signedInAs,
    language: meeting.language,
    // transcript-store's word, not the record's: it knows a recording deleted since.
    recording: await currentRecording(bus, meeting),
    segments: await segmentsFrom(bus, meeting.meetingId, after === undefined ? 0 : after + 1),
    chat: (await call(bus, routes.transcripts.chat, { meetingId: meeting.meetingId })).messages,
  };
});

export const getDocument = composed(getDocumentCapability, async (bus, caller, { meetingId }) => {
  const meeting = await ownedMeeting(bus, caller, meetingId);
  if (!meeting.saveTranscript) throw errors.notFound(NO_DOCUMENT);
  return { meetingId: meeting.meetingId, ...(await wholeDocument(bus, meeting.meetingId)) };
});

export const searchTranscripts = forwarded(searchTranscriptsCapability);

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
