/**
 * The service's event log: every event of every meeting, stored before it is published, so a
 * consumer that was down catches up by sequence (svc.meetings.events).
 *
 * Events are stored in the store's sequence log, keyed by meeting: one page per meeting per
 * record request, all the pages of a request in one append (group commit across meetings: the
 * worker's outbox sends what all its actors emitted together). One write per request instead of
 * one per event is what lets 50 busy meetings stream 20,000 captions a second on the embedded
 * store. Pages of a meeting are contiguous; a page can only start right after the last stored
 * one, and the log refuses a second page at the same place, so two writers of the same sequence
 * are impossible (the loser re-reads and is fenced or goes after it).
 */
import { isDeepStrictEqual } from 'node:util';
import { ServiceError, type EventEnvelope, type EventType } from '@notetaker/contracts';
import type { LogPage, SequenceLog, Store } from '@notetaker/store';
import { batchOf, type EventBatch } from '../protocol.js';

/** UTF-8 bytes of events per reply: NATS' default message limit is 1 MB; a page is at most 400 KB. */
const MAX_REPLY_BYTES = 512 * 1024;

/** A page's body is the batch's JSON array text, as the worker serialized it. */
function toPage({ meetingId, first, last, events }: EventBatch): LogPage {
  return { key: meetingId, first, last, body: events };
}

export class EventLog {
  private readonly pages: SequenceLog;
  /**
   * The last stored sequence per meeting, as this registry last saw it. Only a hint: a page is
   * always inserted at `<hint + 1>`, and because pages are contiguous that slot is taken exactly
   * when the hint is stale, so a stale hint costs one duplicate-key miss and a real read.
   */
  private readonly lastSeen = new Map<string, number>();

  constructor(store: Store) {
    this.pages = store.sequenceLog('events');
  }

  lastSequence(meetingId: string): Promise<number> {
    return this.pages.lastSequence(meetingId);
  }

  /** The meeting's stream is complete: its hint is no longer needed. */
  forget(meetingId: string): void {
    this.lastSeen.delete(meetingId);
  }

  /**
   * Stores batches of several meetings' consecutive events (at most one batch per meeting), in one
   * insert for the batches that continue where this registry last saw their meeting. The others,
   * and all of them when that insert meets a duplicate, go through `append` one by one. Returns,
   * per batch, whether it is stored (false: another writer took those sequences).
   */
  async appendAll(batches: EventBatch[]): Promise<boolean[]> {
    const continuing = batches.filter((batch) => this.lastSeen.get(batch.meetingId) === batch.first - 1);
    let inserted = new Set<EventBatch>();
    if (continuing.length > 0) {
      try {
        await this.pages.append(continuing.map(toPage));
        for (const batch of continuing) this.lastSeen.set(batch.meetingId, batch.last);
        inserted = new Set(continuing);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
        // Someone else wrote one of these meetings meanwhile: sort it out one by one below.
      }
    }
    const results: boolean[] = [];
    for (const batch of batches) results.push(inserted.has(batch) || (await this.append(batch)));
    return results;
  }

  /**
   * Stores a batch of one meeting's consecutive events. Events stored already (a retried batch)
   * are skipped after checking they are the same events. Returns false when the batch does not
   * continue the stored stream: another writer took those sequences.
   */
  async append(batch: EventBatch): Promise<boolean> {
    const { meetingId } = batch;
    let events: EventEnvelope[] | undefined; // parsed only when the batch overlaps what is stored
    for (let attempt = 0; attempt < 3; attempt++) {
      const hint = attempt === 0 ? this.lastSeen.get(meetingId) : undefined;
      const last = hint ?? (await this.lastSequence(meetingId));
      let fresh = batch;
      if (batch.first <= last) {
        events ??= JSON.parse(batch.events) as EventEnvelope[];
        const stored = events.filter((e) => e.sequence <= last);
        const rest = events.filter((e) => e.sequence > last);
        if (!(await this.sameAsStored(stored))) {
          if (hint !== undefined) continue; // the hint may be stale: decide on a real read
          return false;
        }
        if (rest.length === 0) return true;
        fresh = batchOf(rest);
      }
      if (fresh.first !== last + 1) {
        if (hint !== undefined) continue;
        return false;
      }
      try {
        await this.pages.append([toPage(fresh)]);
        this.lastSeen.set(meetingId, fresh.last);
        return true;
      } catch (err) {
        if (!(err instanceof ServiceError) || err.code !== 'duplicate_key') throw err;
        // Someone stored that sequence meanwhile (our own earlier attempt, or another writer): look again.
      }
    }
    return false;
  }

  private async sameAsStored(events: EventEnvelope[]): Promise<boolean> {
    const stored = await this.read(events[0].meetingId, events[0].sequence - 1, events.length, Infinity);
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
      if (await this.append(batchOf([event]))) return event;
      // A late write of the old actor took that sequence: go after it.
    }
  }

  /** Drops the stored events of meetings that ended long ago (retention). */
  async drop(meetingIds: string[]): Promise<void> {
    if (meetingIds.length === 0) return;
    await this.pages.drop(meetingIds);
    for (const id of meetingIds) this.lastSeen.delete(id);
  }

  /**
   * Up to `limit` events after `afterSequence`, in order, and at most about MAX_REPLY_BYTES of
   * them (at least one page): a reply must fit in one NATS message however long the captions.
   */
  after(meetingId: string, afterSequence: number, limit: number): Promise<EventEnvelope[]> {
    return this.read(meetingId, afterSequence, limit, MAX_REPLY_BYTES);
  }

  private async read(meetingId: string, afterSequence: number, limit: number, maxBytes: number) {
    // Every page holds at least one event, so `limit` pages always hold `limit` events or all there are.
    const pages = await this.pages.pagesAfter(meetingId, afterSequence, limit);
    const events: EventEnvelope[] = [];
    let bytes = 0;
    for (const page of pages) {
      bytes += Buffer.byteLength(page.body);
      if (events.length > 0 && bytes > maxBytes) break;
      events.push(...(JSON.parse(page.body) as EventEnvelope[]).filter((e) => e.sequence > afterSequence));
      if (events.length >= limit) break;
    }
    return events.slice(0, limit);
  }
}
