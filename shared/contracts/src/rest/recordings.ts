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
 * One meaning each. `recording`: the bot is capturing (the file grows, or what the worker spooled
 * is still being sent); `saved`: the file is complete, nothing missing; `incomplete`: the file is
 * complete but parts of the meeting are not in it (`gaps` says where and why); `failed`: nothing
 * was stored. How well the page captures is a separate field (`capture`), not a state of the file.
 */
export const RECORDING_STATES = ['recording', 'saved', 'incomplete', 'failed'] as const;
export const recordingState = z.enum(RECORDING_STATES);
export type RecordingState = z.infer<typeof recordingState>;

/**
 * Why a stretch of the meeting is not in the file: the worker's spool was full while storage
 * refused the audio (`spool_full`); the worker was lost before it sent it (`worker_lost`); the
 * page handed over audio that could not be read (`unreadable_audio`); the page could not capture
 * at all (`no_capture`).
 */
export const RECORDING_GAP_REASONS = ['spool_full', 'worker_lost', 'unreadable_audio', 'no_capture'] as const;
export const recordingGap = z.object({
  /** Offsets on the recording's timeline (from `startedAt`), in ms. */
  startMs: z.number().int().min(0),
  endMs: z.number().int().min(0),
  reason: z.enum(RECORDING_GAP_REASONS),
});
export type RecordingGap = z.infer<typeof recordingGap>;

/**
 * How the bot's page captures, while it records: `ok`; `starved` (the renderer handed over less
 * than 80% of the last 10 s, short of CPU: the rest is silence in the file); `none` (the page
 * cannot capture). Absent once the recording is over.
 */
export const CAPTURE_HEALTH = ['ok', 'starved', 'none'] as const;
export const captureHealth = z.enum(CAPTURE_HEALTH);

export const recordingInfo = z.object({
  status: recordingState,
  format: z.literal(RECORDING_FORMAT),
  bytes: z.number().int().min(0),
  durationMs: z.number().int().min(0),
  /** The instant the recording's timeline starts at: a segment's offset in the file is its timestamp minus this. */
  startedAt: isoTimestamp,
  /** The gateway's download path (relative to the service's address). */
  url: z.string(),
  /** Stretches of the meeting the file does not hold, oldest first (empty when none). */
  gaps: z.array(recordingGap).default([]),
  /** While recording: how the page captures. */
  capture: captureHealth.optional(),
  /** While recording: bytes the worker holds (in memory or its spool) that storage has not taken yet. */
  pendingBytes: z.number().int().min(0).optional(),
});
export type RecordingInfo = z.infer<typeof recordingInfo>;

/** The `recording_saved` event's payload: the finished file, without where its timeline starts (the status has it). */
export const recordingSavedPayload = ({ bytes, durationMs, format, status, url, gaps }: RecordingInfo) => ({
  bytes,
  durationMs,
  format,
  status,
  url,
  gaps,
});

export const recordingPath = (meetingId: string) => `/api/v1/meetings/${encodeURIComponent(meetingId)}/recording`;
