/**
 * Where meetings' audio recordings (Ogg Opus, about 12 MB an hour) are kept while the bot sends
 * them in chunks of a few KB, and once they are complete. Two adapters: files under
 * DATA_DIR/recordings (filesystem.ts) and any S3-compatible bucket (s3.ts); the contract suite
 * (test/recording-storage.contract.ts) runs against both.
 *
 * The rules every adapter keeps:
 * - An append is durable when its promise resolves: a SIGKILL of this process right after loses
 *   none of it (the file or the bucket has it, not a buffer of ours).
 * - Appends are idempotent by offset: bytes already stored (a retried bus request) change
 *   nothing and answer the size; bytes that overlap the end add only what is new; an offset past
 *   the end is refused (`recording_gap`), and so is anything past the end of a complete
 *   recording (`recording_complete`).
 * - No state lives only in memory: a new adapter instance (the process restarted after a crash)
 *   continues or completes a recording from what storage holds.
 * - One writer per key at a time: transcript-store's replicas keep to that with a lease
 *   (writers.ts), and tell the adapter to forget() what it cached when a recording comes back.
 * - What is stored so far is readable at any time, while appending and once complete.
 * - Keys are checked by assertRecordingKey (key.ts) before anything else.
 *
 * Errors are ServiceErrors (errors.ts): `bad_request` for a key or number that is not valid,
 * `not_found`, `recording_gap`, `recording_complete`, `range_not_satisfiable`, `storage_full` (a
 * full disk) and `recording_storage_unavailable` (a bucket that cannot be reached or refuses).
 */
import type { Readable } from 'node:stream';

export interface RecordingStat {
  /** Bytes stored. */
  size: number;
  /** complete() was called: the recording is final and nothing more can be appended. */
  complete: boolean;
}

export interface RecordingStorage {
  /** What and where, for log lines: a path or an endpoint and bucket, never a credential. */
  readonly description: string;

  /**
   * Stores `bytes` at byte `offset` of `key`, creating the recording at offset 0. Answers the
   * size stored afterwards.
   */
  append(key: string, offset: number, bytes: Buffer): Promise<{ size: number }>;

  /**
   * Makes the recording final. Safe to call again (it answers the same size), and after a crash
   * of the process that was appending. `not_found` when nothing was ever stored under `key`.
   */
  complete(key: string): Promise<{ size: number }>;

  /** Size and state, or null when nothing is stored under `key`. */
  stat(key: string): Promise<RecordingStat | null>;

  /** The size alone: stat()'s, or null. */
  size(key: string): Promise<number | null>;

  /**
   * Bytes `start` to `endInclusive` of what is stored now, complete or not; an end past what is
   * stored is cut to it. `not_found` when there is no such recording, `range_not_satisfiable`
   * when `start` is at or past its end.
   */
  read(key: string, start: number, endInclusive: number): Promise<Readable>;

  /** Removes every trace of `key` (complete or not). False when there was none; never an error for that. */
  delete(key: string): Promise<boolean>;

  /** Every key that has something stored, complete or not, once each, in no particular order. */
  keys(): AsyncIterable<string>;

  /**
   * Another writer may have appended to `key` since this instance last did (transcript-store
   * handed the recording to another replica and back): what this instance remembers of it is
   * read from storage again before its next append. For adapters that remember nothing, absent.
   */
  forget?(key: string): void;

  /** Waits for work under way and lets go of descriptors and connections. */
  close(): Promise<void>;
}
