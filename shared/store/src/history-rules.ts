/** What both history logs (port.ts HistoryLog) accept, so each adapter refuses the same input. */
import { errors } from '@notetaker/contracts';
import { isCount } from './collection-log.js';

/** Keys become file names in the embedded adapter (base64url, 4/3 longer): 180 bytes stay under 255. */
const MAX_KEY_BYTES = 180;

export function assertHistoryKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > MAX_KEY_BYTES) {
    throw errors.badRequest(`A history key is 1-${MAX_KEY_BYTES} bytes of text`);
  }
}

export function assertHistoryRecord(record: string): void {
  if (typeof record !== 'string' || record.includes('\n')) {
    throw errors.badRequest('A history record is one line of text');
  }
}

export function assertCounts(...counts: number[]): void {
  if (!counts.every(isCount)) throw errors.badRequest('limit, skip and keep are whole numbers');
}
