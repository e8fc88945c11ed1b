/**
 * The errors a recording storage raises, in one place so both adapters say the same thing and
 * the caller can tell them apart by code: a gap or a finished recording is the sender's mistake
 * (409), a full disk or an unreachable bucket is the storage's, a busy replica is load (the
 * worker keeps the audio in its spool and sends it again; the transcript goes on meanwhile).
 */
import { ServiceError, errors } from '@notetaker/contracts';

export const recordingErrors = {
  /** Bytes at `offset` would leave a hole after the `size` bytes stored: an earlier chunk is missing. */
  gap: (key: string, offset: number, size: number) =>
    new ServiceError(
      'recording_gap',
      `Recording ${key}: a chunk at byte ${offset} would leave a gap after the ${size} bytes stored`,
      409,
    ),
  /** Bytes past the end of a recording that was completed: nothing may be added any more. */
  complete: (key: string, size: number) =>
    new ServiceError(
      'recording_complete',
      `Recording ${key} is complete at ${size} bytes; nothing can be appended`,
      409,
    ),
  notFound: (key: string) => errors.notFound(`No recording ${key}`),
  /** A read that starts at or past the end of what is stored. */
  range: (key: string, start: number, size: number) =>
    new ServiceError('range_not_satisfiable', `Recording ${key}: byte ${start} is past the ${size} bytes stored`, 416),
  /** ENOSPC or EDQUOT: what reached the disk before stays, the rest of the chunk did not. */
  storageFull: (where: string) =>
    new ServiceError('storage_full', `Recording storage is full: no space left on ${where}`, 507),
  /**
   * This replica holds as much of the meeting's (or all meetings') waiting audio as it may, or the
   * replica that writes the recording cannot take it now: the sender keeps the batch and tries
   * again (the worker's spool), nothing was stored.
   */
  busy: (meetingId: string, why: string, retryAfterS = 1) =>
    new ServiceError('recording_busy', `Recording of ${meetingId} cannot take more now: ${why}`, 503, true, {
      retryAfterS,
    }),
  /** An object store that cannot be reached or refuses us; `why` names the cause, never a secret. */
  unavailable: (where: string, why: string) =>
    new ServiceError('recording_storage_unavailable', `Recording storage ${where} failed: ${why}`, 503, true),
};

/** Runs a storage step; what it throws is thrown as `translate` makes it (a recording error, or the error as it was). */
export async function translatingErrors<T>(step: () => Promise<T>, translate: (err: unknown) => unknown): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw translate(err);
  }
}
