/**
 * Where a meeting's words come from: the platform's captions, the meeting's audio through a speech
 * engine, or captions while they can be read and audio while they cannot (docs/services/meeting-session.md,
 * "Transcription from audio").
 */
import { z } from 'zod';
import { isoTimestamp } from '../events.js';

export const TRANSCRIPTION_MODES = ['auto', 'captions', 'audio'] as const;
export const transcriptionMode = z.enum(TRANSCRIPTION_MODES, {
  error: 'transcription must be one of auto, captions, audio',
});
export type TranscriptionMode = z.infer<typeof transcriptionMode>;

/** What one caption_partial or segment_finalized was read from. */
/** `bot`: what the bot itself said (speak), as it was asked to say it. */
export const TRANSCRIPT_SOURCES = ['captions', 'audio', 'bot'] as const;
export const transcriptSource = z.enum(TRANSCRIPT_SOURCES);
export type TranscriptSource = z.infer<typeof transcriptSource>;

/**
 * Speech the bot heard but could not turn into words: the engine did not answer, or the meeting's
 * budget of audio seconds was spent. The segment names the speaker and when; its text is empty.
 */
export const UNTRANSCRIBED_REASONS = ['engine_unavailable', 'budget_exhausted'] as const;
export const untranscribed = z.object({
  reason: z.enum(UNTRANSCRIBED_REASONS),
  /** When the untranscribed speech ended. */
  until: isoTimestamp,
});
export type Untranscribed = z.infer<typeof untranscribed>;

/** A meeting's transcription as its status shows it: what was asked, and what it reads from now. */
export const transcriptionInfo = z.object({
  mode: transcriptionMode,
  /** Null before the bot is in the call. */
  source: transcriptSource.nullable(),
  /**
   * Segments from the audio whose speaker no tile showed while they were said (their speaker is
   * "Unknown"); absent while there are none.
   */
  unknownSpeakerSegments: z.number().int().min(0).optional(),
});
export type TranscriptionInfo = z.infer<typeof transcriptionInfo>;
