/** Meeting and worker ids. Random parts come from the CSPRNG: a meeting id must not be guessable. */
import crypto from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform over the alphabet: bytes >= 248 are dropped instead of folded (no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

/** `meeting_<epoch ms>_<16 alphanumerics>` (about 95 bits of randomness). */
export function newMeetingId(now = Date.now()): string {
  return `meeting_${now}_${randomAlphanumeric(16)}`;
}

export function newWorkerId(): string {
  return `worker_${randomAlphanumeric(12)}`;
}
