/**
 * Recording keys (`<meetingId>.ogg`) become file names and object names, so every adapter checks
 * them here first: a plain name of safe characters, so no key can climb out of the storage root
 * (`..`, `/`, `\`, NUL) or land on an adapter's own staging names, which start with a dot.
 */
import { errors } from '@notetaker/contracts';

/** Starts with a letter or digit (so never `.`), then letters, digits, `.`, `_`, `-`; 200 at most. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function assertRecordingKey(key: string): void {
  if (typeof key !== 'string' || !KEY.test(key) || key.includes('..')) {
    throw errors.badRequest(
      'recording key must be 1-200 letters, digits, ".", "_" or "-", start with a letter or digit and contain no ".."',
      'key',
    );
  }
}

/** Offsets and sizes are whole, non-negative byte counts. */
export function assertByteCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw errors.badRequest(`${name} must be a whole number of bytes, at least 0`, name);
  }
}

/** A read's range: both ends whole byte counts, the end (inclusive) not before the start. */
export function assertRange(start: number, endInclusive: number): void {
  assertByteCount('start', start);
  assertByteCount('end', endInclusive);
  if (endInclusive < start) throw errors.badRequest('end must not be before start', 'end');
}

/** assertRecordingKey as a test: for telling recordings from other names in a listing. */
export function isRecordingKey(name: string): boolean {
  try {
    assertRecordingKey(name);
    return true;
  } catch {
    return false;
  }
}
