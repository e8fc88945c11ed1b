/**
 * The capabilities of transcript-store: search over the saved transcripts (answered on
 * `routes.transcripts.search`), and a meeting's transcript and document, which the gateway
 * composes (meeting-session says whose meeting it is, transcript-store holds the words, read in
 * pages that stay far below NATS' payload limit).
 */
import { z } from 'zod';
import { count, defineCapability, READ } from '../capability.js';
import { searchQuery, searchResponse } from '../messages.js';
import { meetingRefRequest, NO_DOCUMENT, transcriptRequest, transcriptResponse } from '../rest.js';
import { NOT_OWNED } from './meetings.js';

export const getTranscript = defineCapability({
  name: 'get_transcript',
  input: transcriptRequest,
  output: transcriptResponse,
  errors: { 404: NOT_OWNED },
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/transcript',
    summary: 'The finalized segments of a live or ended meeting (after an index: only the newer ones)',
    description: 'The transcript',
  },
  tool: {
    title: 'Read a meeting transcript',
    description:
      'The finalized segments of a meeting this API key started, live or ended. Pass `after` (the index of ' +
      "the last segment already read) to get only the newer ones. `chat` holds the messages of the meeting's chat, in order.",
    annotations: READ,
    text: (b) =>
      `Meeting ${b.meetingId} (${b.status}): ${count(b.segments.length, 'segment')}` +
      b.segments.map((s) => `\n${s.speaker}: ${s.text}`).join('') +
      (b.chat.length ? `\nChat:${b.chat.map((m) => `\n${m.sender}: ${m.text}`).join('')}` : ''),
  },
});

/** The saved markdown file of a meeting (REST answers `content` as the body itself). */
export const documentBody = z.object({
  meetingId: z.string(),
  filename: z.string(),
  documentPath: z.string(),
  content: z.string().describe('The markdown document: front matter, then the transcript.'),
});

export const getDocument = defineCapability({
  name: 'get_document',
  input: meetingRefRequest,
  output: documentBody,
  errors: { 404: `${NOT_OWNED}; or ${NO_DOCUMENT}` },
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/document',
    markdown: true,
    summary: 'The saved markdown document, as a download',
    description: 'The markdown file',
  },
  tool: {
    title: 'Read a saved transcript document',
    description: 'The markdown document saved for a meeting this API key started (when saveTranscript was on).',
    annotations: READ,
    text: (b) => b.content,
  },
});

export const searchTranscripts = defineCapability({
  name: 'search_transcripts',
  bus: { service: 'transcripts', verb: 'search', scope: 'instance' },
  input: searchQuery,
  output: searchResponse,
  errors: { 503: 'The index is being rebuilt; retry' },
  rest: {
    method: 'get',
    path: '/search',
    summary: 'Search saved transcripts, best first',
    description: 'Results',
  },
  tool: {
    title: 'Search saved transcripts',
    description: 'Full-text search over the saved transcripts of the instance, best matches first.',
    annotations: READ,
    text: (b) =>
      `${count(b.results.length, 'result')}` +
      b.results.map((r) => `\n- ${r.title}, ${r.speaker}: ${r.snippet}`).join(''),
  },
});

export const TRANSCRIPT_CAPABILITIES = [getTranscript, getDocument, searchTranscripts] as const;
