/**
 * Finalized segments, one store document per (meetingId, index). The `_id` is derived from both,
 * so a retried append (the actor timed out waiting for our reply) stores the segment once on every
 * store adapter without a read first.
 */
import { ServiceError, type TranscriptSegment } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';

export interface StoredSegment {
  [key: string]: unknown;
  _id?: string;
  meetingId: string;
  index: number;
  speaker: string;
  text: string;
  timestamp: string;
}

/** One reply page stays far below NATS' 1 MB payload limit even with long captions. */
const PAGE_MAX_SEGMENTS = 2000;
const PAGE_MAX_CHARS = 256 * 1024;
const ID_BATCH = 256;

export class Segments {
  readonly collection: Collection<StoredSegment>;

  constructor(store: Store) {
    this.collection = store.collection<StoredSegment>('segments');
  }

  async init(): Promise<void> {
    // Range reads by meeting: MongoDB uses the compound index, nedb the single-field one.
    await this.collection.createIndex({ meetingId: 1, index: 1 });
    await this.collection.createIndex({ meetingId: 1 });
  }

  /** True when stored now, false when this (meetingId, index) was stored before. */
  async append(meetingId: string, index: number, segment: TranscriptSegment): Promise<boolean> {
    try {
      await this.collection.insertOne({
        _id: `${meetingId}:${index}`,
        meetingId,
        index,
        speaker: segment.speaker,
        text: segment.text,
        // Always with milliseconds, whatever precision the caller sent (SPEC 2.2).
        timestamp: new Date(segment.timestamp).toISOString(),
      });
      return true;
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'duplicate_key') return false;
      throw err;
    }
  }

  /**
   * Segments with index > afterIndex, in order, looked up by `_id` in batches: a flush asks for
   * the few segments since the last one, and a range query would walk every segment of the meeting
   * on the embedded store. Indexes are contiguous (the actor appends them in order), so a batch
   * that does not reach its last id is the end; a segment behind a gap at a batch's end is found
   * by the next flush, which starts after the last segment found.
   */
  async after(meetingId: string, afterIndex: number): Promise<StoredSegment[]> {
    const found: StoredSegment[] = [];
    for (let from = afterIndex + 1; ; from += ID_BATCH) {
      const ids = Array.from({ length: ID_BATCH }, (_, i) => `${meetingId}:${from + i}`);
      const batch = await this.collection.find({ _id: { $in: ids } }, { sort: { index: 1 } });
      found.push(...batch);
      if (batch.length === 0 || batch[batch.length - 1].index !== from + ID_BATCH - 1) return found;
    }
  }

  /** Segments with index > afterIndex (and <= upTo when given), in order. */
  range(meetingId: string, afterIndex: number, upTo?: number): Promise<StoredSegment[]> {
    const index = upTo === undefined ? { $gt: afterIndex } : { $gt: afterIndex, $lte: upTo };
    return this.collection.find({ meetingId, index }, { sort: { index: 1 } });
  }

  /** One page of a meeting's transcript from `fromIndex`, and where the next page starts. */
  async page(meetingId: string, fromIndex: number) {
    const found = await this.collection.find(
      { meetingId, index: { $gte: fromIndex } },
      { sort: { index: 1 }, limit: PAGE_MAX_SEGMENTS + 1 },
    );
    const segments: TranscriptSegment[] = [];
    let chars = 0;
    let nextIndex: number | null = null;
    for (const s of found) {
      chars += s.speaker.length + s.text.length + 64;
      if (segments.length === PAGE_MAX_SEGMENTS || (segments.length > 0 && chars > PAGE_MAX_CHARS)) {
        nextIndex = s.index;
        break;
      }
      segments.push({ speaker: s.speaker, text: s.text, timestamp: s.timestamp });
    }
    return { segments, nextIndex };
  }
}
