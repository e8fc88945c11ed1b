/**
 * Finalized segments, one store document per (meetingId, index). The `_id` is derived from both,
 * so a retried append (the actor timed out waiting for our reply) stores the segment once on every
 * store adapter without a read first.
 */
import { ServiceError, type TranscriptSegment, type TranscriptSource, type Untranscribed } from '@notetaker/contracts';
import { GroupCommit, type Collection, type Store } from '@notetaker/store';

export interface StoredSegment {
  [key: string]: unknown;
  _id?: string;
  meetingId: string;
  index: number;
  speaker: string;
  text: string;
  timestamp: string;
  /** Absent: captions (every segment from before audio transcription). */
  source?: TranscriptSource;
  untranscribed?: Untranscribed;
}

/** One reply page stays far below NATS' 1 MB payload limit even with long captions. */
const PAGE_MAX_SEGMENTS = 2000;
const PAGE_MAX_CHARS = 256 * 1024;
const ID_BATCH = 256;

const isDuplicate = (err: unknown) => err instanceof ServiceError && err.code === 'duplicate_key';

export class Segments {
  readonly collection: Collection<StoredSegment>;
  /** Appends of all meetings that arrive together share one insert; resolves with the ids stored before. */
  private readonly writer: GroupCommit<StoredSegment, Set<string>>;

  constructor(store: Store) {
    this.collection = store.collection<StoredSegment>('segments');
    this.writer = new GroupCommit((segments) => this.insert(segments));
  }

  async init(): Promise<void> {
    // Range reads by meeting (the embedded store indexes the prefix, meetingId, alone).
    await this.collection.createIndex({ meetingId: 1, index: 1 });
  }

  /** True when stored now, false when this (meetingId, index) was stored before. */
  async append(meetingId: string, index: number, segment: TranscriptSegment): Promise<boolean> {
    const _id = segmentId(meetingId, index);
    const storedBefore = await this.writer.add({
      _id,
      meetingId,
      index,
      speaker: segment.speaker,
      text: segment.text,
      // Always with milliseconds, whatever precision the caller sent: every instant the API answers has them.
      timestamp: new Date(segment.timestamp).toISOString(),
      ...(segment.source === 'audio' ? { source: 'audio' } : {}),
      ...(segment.untranscribed ? { untranscribed: segment.untranscribed } : {}),
    });
    return !storedBefore.has(_id);
  }

  /** Waits for the appends under way (shutdown). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /**
   * One insert for the batch; a batch holding a retried segment goes one by one instead. (On
   * MongoDB the segments before the duplicate are then found stored: `stored: false` is only
   * advice, the segment is there either way.)
   */
  private async insert(segments: StoredSegment[]): Promise<Set<string>> {
    const storedBefore = new Set<string>();
    try {
      await this.collection.insertMany(segments);
      return storedBefore;
    } catch (err) {
      if (!isDuplicate(err)) throw err;
    }
    for (const segment of segments) {
      try {
        await this.collection.insertOne(segment);
      } catch (err) {
        if (!isDuplicate(err)) throw err;
        storedBefore.add(segment._id!);
      }
    }
    return storedBefore;
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
      const batch = await this.at(
        meetingId,
        Array.from({ length: ID_BATCH }, (_, i) => from + i),
      );
      found.push(...batch);
      if (batch.length === 0 || batch[batch.length - 1].index !== from + ID_BATCH - 1) return found;
    }
  }

  /** The segments stored at these indexes, in order, looked up by `_id` (no walk over the meeting). */
  at(meetingId: string, indexes: readonly number[]): Promise<StoredSegment[]> {
    const ids = indexes.map((index) => segmentId(meetingId, index));
    return this.collection.find({ _id: { $in: ids } }, { sort: { index: 1 } });
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
      const { speaker, text, timestamp, untranscribed } = s;
      segments.push({
        speaker,
        text,
        timestamp,
        source: s.source ?? 'captions',
        ...(untranscribed ? { untranscribed } : {}),
      });
    }
    return { segments, nextIndex };
  }
}

/** A segment's `_id`: one per (meeting, index), so a retried append is found stored. */
function segmentId(meetingId: string, index: number): string {
  return `${meetingId}:${index}`;
}
