/**
 * A meeting's recording as the `recordings` collection keeps it: one document per meeting, what
 * storage holds of the file and in which state, and who writes it (writers.ts).
 */
import { RECORDING_FORMAT, recordingPath, type RecordingGap, type RecordingInfo } from '@notetaker/contracts';
import type { WriterFields } from './writers.js';

/**
 * `unavailable`: a state of older versions (storage refused part of the audio, or capture was
 * poor): read as `incomplete`, and rewritten so by the sweep.
 */
export type StoredStatus = RecordingInfo['status'] | 'unavailable';

export interface RecordingDoc extends WriterFields {
  [key: string]: unknown;
  _id: string;
  startedAt: string;
  status: StoredStatus;
  /** Bytes stored: the file's size once complete. */
  bytes: number;
  /** The stored timeline's end: the `durationMs` of the last append stored. */
  durationMs: number;
  /** What the file does not hold, oldest first (finish's, merged). */
  gaps?: RecordingGap[];
  /** The highest batch number stored (the worker's `sequence`), for log lines. */
  lastSequence?: number;
  /**
   * A finish came and storage did not complete the file yet (it stays `recording`): the sweep
   * completes it with the gaps that finish gave, and a lost worker's gap is not added.
   */
  finishRequestedAt?: string;
  /** The last append (or the start of the record): the sweep finds abandoned recordings by it. */
  updatedAt: string;
}

export const keyOf = (meetingId: string) => `${meetingId}.ogg`;

export const isFinished = (doc: RecordingDoc) => doc.status !== 'recording';

export function infoOf(doc: RecordingDoc): RecordingInfo {
  return {
    status: doc.status === 'unavailable' ? 'incomplete' : doc.status,
    format: RECORDING_FORMAT,
    bytes: doc.bytes,
    durationMs: doc.durationMs,
    startedAt: doc.startedAt,
    url: recordingPath(doc._id),
    gaps: doc.gaps ?? [],
  };
}
