/**
 * A meeting's stream in brief, to compare whole streams with what a case expects: `shape` names
 * each callback, and the runs every stream opens and closes with are named once here.
 */
import type { ReceivedCallback } from '../../support/callback-receiver.js';
import { describeCallback } from './world.js';

const CAPTION_EVENTS = new Set(['caption_partial', 'segment_finalized']);

/**
 * The stream's shape: statuses with their reasons, and each run of caption events (partials and
 * finalized segments, whose interleaving is the platform's timing: Teams finalizes a row only once
 * it stood still, while the next speaker's row is already growing) shown once as `captions`.
 */
export function shape(callbacks: ReceivedCallback[]): string[] {
  const out: string[] = [];
  for (const c of callbacks) {
    const name = CAPTION_EVENTS.has(String(c.eventType)) ? 'captions' : describeCallback(c);
    if (name === 'captions' && out.at(-1) === name) continue;
    out.push(name);
  }
  return out;
}

/** How a stream opens, in `shape`'s terms: the bot joining, let in at once (no lobby), live. */
export const JOINED = ['meeting_status:joining', 'meeting_status:live'];
/** JOINED, then someone joining the call and what they said shown as captions. */
export const JOINED_AND_CAPTIONED = [...JOINED, 'participant_joined', 'captions'];

/**
 * How every stream closes, in `shape`'s terms: the final document flush, then the final status with
 * its reason; a meeting that ends (rather than fails) first says it is leaving, for the same reason.
 */
export const endedBy = (reason: string) => [
  `meeting_status:leaving(${reason})`,
  'document_saved',
  `meeting_status:ended(${reason})`,
];
export const failedWith = (reason: string) => ['document_saved', `meeting_status:error(${reason})`];
