/** Transcripts: a meeting's segments, read incrementally. */
import { z } from 'zod';
import { recordingInfo } from './recordings.js';
import { transcriptSource, untranscribed } from './transcription.js';
import { isoTimestamp } from '../events.js';
import { meetingRefRequest, meetingStatus } from './meetings.js';
import { queryCount } from './query.js';
import { chatMessage } from './chat.js';

/** A meeting whose transcript was not saved (or whose document is gone): the 404's message. */
export const NO_DOCUMENT = 'No saved document for this meeting';

export const transcriptSegment = z.object({
  speaker: z.string(),
  text: z.string(),
  timestamp: isoTimestamp,
  /** What the words were read from; absent on segments from before audio transcription: captions. */
  source: transcriptSource.optional(),
  /** Present when speech was heard but not transcribed (the text is then empty). */
  untranscribed: untranscribed.optional(),
});
export type TranscriptSegment = z.infer<typeof transcriptSegment>;

/** `after`: read incrementally; only the segments after this index (the first segment is 0) come back. */
export const transcriptQuery = z.strictObject({
  after: queryCount('after')
    .optional()
    .describe(
      'Index of the last segment already read (the first segment is 0): only later segments are returned. Omit to read them all.',
    ),
});
export const transcriptRequest = meetingRefRequest.extend(transcriptQuery.shape);

export const transcriptResponse = z.object({
  meetingId: z.string(),
  status: meetingStatus,
  project: z.string(),
  documentPath: z.string().nullable(),
  signedInAs: z.string().nullable(),
  language: z.string().nullable(),
  /** The meeting's audio recording, or null when it has none (never recorded, or deleted). */
  recording: recordingInfo.nullable(),
  segments: z.array(transcriptSegment),
  /** The meeting's chat, in order (rest/chat.ts): every message, whatever `after` says. */
  chat: z.array(chatMessage),
});
