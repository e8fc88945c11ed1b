/**
 * The service's event log: every event of every meeting, stored before it is published, so a
 * consumer that was down catches up by sequence (svc.meetings.events).
 *
 * Events are stored in pages: one document per batch an actor hands over (group commit), with
 * `_id` `<meetingId>:<first sequence>`. One write per batch instead of one per event is what lets
 * a busy meeting stream thousands of captions a second on the embedded store. Pages of a meeting
 * are contiguous; a page can only start right after the last stored one, and the unique `_id`
 * makes two writers of the same sequence impossible (the loser re-reads and is fenced or goes
 * after it).
 *
 * Pages are spread over SHARDS collections by meeting: the embedded store writes one collection at
 * a time (each write appended to its file), so one collection would make every meeting wait for
 * every other meeting's write. With MongoDB the shards cost nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import { ServiceError, type EventEnvelope, type EventType } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';

/**
 * `events` is the batch as one JSON string: the log never queries inside a page, and an opaque
 * string costs the embedded store one escape instead of a walk over every event's fields.
 */
type PageDoc = { _id: string; meetingId: string; first: number; last: number; events: string };

const SHARDS = 8;

/** FNV-1a: a stable, cheap spread of meeting ids over the shards. */
function shardOf(meetingId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < meetingId.length; i++) hash = Math.imul(hash ^ meetingId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SHARDS;
}

function toPage(events: EventEnvelope[]): PageDoc {
  const { meetingId, sequence } = events[0];
  return {
    _id: `${meetingId}:${sequence}`,
    meetingId,
    first: sequence,
    last: events[events.length - 1].sequence,
    events: JSON.stringify(events),
  };
}

export class EventLog {
  private readonly shards: Array<Collection<PageDoc>>;
  /**
   * The last stored sequence per meeting, as this registry last saw it. Only a hint: a page is
   * always inserted at `<hint + 1>`, and because pages are contiguous that slot is taken exactly
   * when the hint is stale, so a stale hint costs one duplicate-key miss and a real read.
   */
  private readonly lastSeen = new Map<string, number>();

  constructor(store: Store) {
    this.shards = Array.from({ length: SHARDS }, (_, i) => store.collection<PageDoc>(`event_pages_${i}`));
  }

  async init(): Promise<void> {
    for (const pages of this.shards) await pages.createIndex({ meetingId: 1 });
  }

  private pages(meetingId: string): Collection<PageDoc> {
    return this.shards[shardOf(meetingId)];
  }

  async lastSequence(meetingId: string): Promise<number> {
    const last = await this.pages(meetingId).findOne({ meetingId }, { sort: { last: -1 }, projection: { last: 1 } });
    return last?.last ?? 0;
  }

  /** The meeting's stream is complete: its hint is no longer needed. */
  forget(meetingId: string): void {
    this.lastSeen.delete(meetingId);
  }

  /**
   * Stores batches of several meetings' consecutive events (at most one batch per meeting), with
   * one insert per shard for the batches that continue where this registry last saw their meeting.
   * The others, and the batches of a shard whose insert met a duplicate, go through `append` one
   * by one. Returns, per batch, whether it is stored (false: another writer took those sequences).
   */
  async appendAll(batches: EventEnvelope[][]): Promise<boolean[]> {
    const results = new Array<boolean>(batches.length).fill(false);
    const slow: number[] = [];
    const byShard = new Map<number, number[]>();
    for (const [i, events] of batches.entries()) {
      const { meetingId, sequence } = events[0];
      if (this.lastSeen.get(meetingId) !== sequence - 1) {
        slow.push(i);
        continue;
      }
      const shard = shardOf(meetingId);
      byShard.set(shard, [...(byShard.get(shard) ?? []), i]);
    }
    await Promise.all(
      [...byShard].map(async ([shard, indexes]) => {
        try {
          await this.shards[shard].insertMany(indexes.map((i) => toPage(batches[i])));
        } catch (err) {
          if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
          slow.push(...indexes); // someone else wrote one of these meetings: sort it out one by one
          return;
        }
        for (const i of indexes) {
          results[i] = true;
          this.lastSeen.set(batches[i][0].meetingId, batches[i].at(-1)!.sequence);
        }
      }),
    );
    for (const i of slow) results[i] = await this.append(batches[i]);
    return results;
  }

  /**
   * Stores a batch of one meeting's consecutive events. Events stored already (a retried batch)
   * are skipped after checking they are the same events. Returns false when the batch does not
   * continue the stored stream: another writer took those sequences.
   */
  async append(events: EventEnvelope[]): Promise<boolean> {
    const meetingId = events[0].meetingId;
    for (let attempt = 0; attempt < 3; attempt++) {
      const hint = attempt === 0 ? this.lastSeen.get(meetingId) : undefined;
      const last = hint ?? (await this.lastSequence(meetingId));
      const stored = events.filter((e) => e.sequence <= last);
      const fresh = events.filter((e) => e.sequence > last);
      const continues = fresh.length === 0 || fresh[0].sequence === last + 1;
      if (!continues || (stored.length > 0 && !(await this.sameAsStored(stored)))) {
        if (hint !== undefined) continue; // the hint may be stale: decide on a real read
        return false;
      }
      if (fresh.length === 0) return true;
      try {
        await this.pages(meetingId).insertOne(toPage(fresh));
        this.lastSeen.set(meetingId, fresh[fresh.length - 1].sequence);
        return true;
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
        // Someone stored that sequence meanwhile (our own earlier attempt, or another writer): look again.
      }
    }
    return false;
  }

  private async sameAsStored(events: EventEnvelope[]): Promise<boolean> {
    const stored = await this.after(events[0].meetingId, events[0].sequence - 1, events.length);
    return events.every((e, i) => isDeepStrictEqual(stored[i], e));
  }

  /** Appends one event after the last stored one, for a writer that is not the actor (worker lost). */
  async appendNext(meetingId: string, type: EventType, payload: Record<string, unknown>): Promise<EventEnvelope> {
    for (;;) {
      const event: EventEnvelope = {
        type,
        meetingId,
        sequence: (await this.lastSequence(meetingId)) + 1,
        timestamp: new Date().toISOString(),
        payload,
      };
      if (await this.append([event])) return event;
      // A late write of the old actor took that sequence: go after it.
    }
  }

  /** Drops the stored events of meetings that ended long ago (retention). */
  async drop(meetingIds: string[]): Promise<void> {
    if (meetingIds.length === 0) return;
    for (const pages of this.shards) await pages.deleteMany({ meetingId: { $in: meetingIds } });
    for (const id of meetingIds) this.lastSeen.delete(id);
  }

  async after(meetingId: string, afterSequence: number, limit: number): Promise<EventEnvelope[]> {
    // Every page holds at least one event, so `limit` pages always hold `limit` events or all there are.
    const pages = await this.pages(meetingId).find(
      { meetingId, last: { $gt: afterSequence } },
      { sort: { first: 1 }, limit },
    );
    return pages
      .flatMap((page) => JSON.parse(page.events) as EventEnvelope[])
      .filter((e) => e.sequence > afterSequence)
      .slice(0, limit);
  }
}
