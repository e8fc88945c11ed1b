/**
 * A meeting's audio recording: asked for at start, described in the status and the transcript,
 * downloaded from the gateway (docs/services/gateway.md, "Recordings").
 */
import { z } from 'zod';
import { isoTimestamp } from '../events.js';

export const RECORDING_MODES = ['audio', 'none'] as const;
export const recordingMode = z.enum(RECORDING_MODES, { error: 'recording must be one of audio, none' });
export type RecordingMode = z.infer<typeof recordingMode>;

/** Opus in Ogg: playable while it grows and after a crash (every page stands alone), seekable by bisection. */
export const RECORDING_FORMAT = 'audio/ogg';

/**
 * `recording`: the bot is capturing (the file grows); `saved`: the file is complete; `unavailable`:
 * storage refused the audio (a full disk, an unreachable bucket): the file holds what was stored
 * before, and the transcript went on without it.
 */
export const RECORDING_STATES = ['recording', 'saved', 'unavailable'] as const;
export const recordingState = z.enum(RECORDING_STATES);

export const recordingInfo = z.object({
  status: recordingState,
  format: z.literal(RECORDING_FORMAT),
  bytes: z.number().int().min(0),
  durationMs: z.number().int().min(0),
  /** The instant the recording's timeline starts at: a segment's offset in the file is its timestamp minus this. */
  startedAt: isoTimestamp,
  /** The gateway's download path (relative to the service's address). */
  url: z.string(),
});
export type RecordingInfo = z.infer<typeof recordingInfo>;

/** The `recording_saved` event's payload: the finished file, without where its timeline starts (the status has it). */
export const recordingSavedPayload = ({ bytes, durationMs, format, status, url }: RecordingInfo) => ({
  bytes,
  durationMs,
  format,
  status,
  url,
});

export const recordingPath = (meetingId: string) => `/api/v1/meetings/${encodeURIComponent(meetingId)}/recording`;
