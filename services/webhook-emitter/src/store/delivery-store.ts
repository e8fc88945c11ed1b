/**
 * The emitter's store: the durable outbox and the delivery log in one.
 *
 * `callbacks`: one document per registered meeting (where its events go, whose secret signs
 * them, whether the receiver said 410 Gone, whether the meeting is finished).
 * `event_batches` and `outcome_batches`: append-only journals written by group commit. An event
 * batch holds the exact bytes of the events that arrived together (written before any of them is
 * sent); an outcome batch holds the attempts and state changes recorded together. One write
 * carries many events, so the store keeps up at thousands of events per second. A meeting's state
 * is the fold of its entries (`readMeeting`). The signing secret is never stored here.
 */
import type { Collection, Store } from '@notetaker/store';
import { GroupCommit } from '@notetaker/kit';

/** no_key: a meeting started from the UI (no API key, so no signing secret): nothing is sent. */
export type CallbackState = 'active' | 'gone' | 'no_key';

export interface CallbackDoc {
  _id: string; // meetingId
  callbackUrl: string;
  tokenId: string | null;
  state: CallbackState;
  registeredAt: string;
  goneAt: string | null;
  /** Sequence of the meeting's terminal meeting_status (ended/error), once seen. */
  finalSequence: number | null;
  finishedAt: string | null;
  [key: string]: unknown;
}

export type DeliveryState = 'pending' | 'delivered' | 'dead_lettered' | 'dropped' | 'gone' | 'missed';

export const TERMINAL: ReadonlySet<DeliveryState> = new Set([
  'delivered',
  'dead_lettered',
  'dropped',
  'gone',
  'missed',
]);

export interface AttemptRecord {
  at: string;
  deliveryId: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** An event as it arrived: the exact bytes to send (UTF-8 JSON) and what ordering needs. */
export interface StoredEvent {
  meetingId: string;
  sequence: number;
  type: string;
  body: string;
  captionKey: string | null;
  receivedAt: string;
}

/**
 * One attempt and/or state change of one event. `pending` with an attempt is a failure to retry.
 * It names the event's type so the log still reads once the event's batch (its bytes) is gone.
 * When it happened is its batch's `at`: entries are written within milliseconds of being recorded.
 */
export interface OutcomeEntry {
  meetingId: string;
  sequence: number;
  type: string;
  state: DeliveryState;
  reason: string | null;
  attempt: AttemptRecord | null;
  firstAttemptAt: string | null;
  nextAttemptAt: string | null;
}

/** Entries written before they shared their batch's time carry their own. */
type StoredOutcome = OutcomeEntry & { at?: string };

/** An event folded from the journals. */
export interface EventRecord {
  /** The event batch holding its bytes, while it is kept. */
  batchId: string | null;
  meetingId: string;
  sequence: number;
  type: string;
  body: string | null;
  captionKey: string | null;
  receivedAt: string | null;
  state: DeliveryState;
  reason: string | null;
  attempts: AttemptRecord[];
  firstAttemptAt: string | null;
  nextAttemptAt: string | null;
  finishedAt: string | null;
}

interface BatchDoc {
  _id: string;
  at: string;
  meetingIds: string[];
  [key: string]: unknown;
}
/**
 * A batch's entries are one JSON text: the store only ever finds a batch by its meetings, never
 * by what is inside it, and as objects every field of every entry would be copied, checked and
 * serialized one by one (embedded) on each write. Batches written as arrays are read as well.
 */
type Entries<T> = string | T[];
interface EventBatchDoc extends BatchDoc {
  events: Entries<StoredEvent>;
}
interface OutcomeBatchDoc extends BatchDoc {
  entries: Entries<StoredOutcome>;
}

function entriesOf<T>(entries: Entries<T>): T[] {
  return typeof entries === 'string' ? (JSON.parse(entries) as T[]) : entries;
}

export function eventId(meetingId: string, sequence: number): string {
  return `${meetingId}:${sequence}`;
}

/** Sortable batch ids: time first, then this process's boot id and a counter. */
const bootId = Math.random().toString(36).slice(2, 8);
let counter = 0;
function batchId(): string {
  return `${Date.now().toString().padStart(15, '0')}-${bootId}-${(counter++).toString().padStart(9, '0')}`;
}

/** An event's delivery state before any outcome is folded in. */
function notYetTried() {
  return {
    state: 'pending' as DeliveryState,
    reason: null,
    attempts: [] as AttemptRecord[],
    firstAttemptAt: null,
    nextAttemptAt: null,
    finishedAt: null,
  };
}

export class DeliveryStore {
  readonly callbacks: Collection<CallbackDoc>;
  private readonly eventBatches: Collection<EventBatchDoc>;
  private readonly outcomeBatches: Collection<OutcomeBatchDoc>;
  private readonly eventWriter: GroupCommit<StoredEvent, string>;
  private readonly outcomeWriter: GroupCommit<OutcomeEntry>;
  private readonly batchDeleter: GroupCommit<string>;
  /** Unsettled events per event batch: a batch whose events are all settled is deleted. */
  private readonly unsettled = new Map<string, number>();

  constructor(store: Store) {
    this.callbacks = store.collection<CallbackDoc>('callbacks');
    this.eventBatches = store.collection<EventBatchDoc>('event_batches');
    this.outcomeBatches = store.collection<OutcomeBatchDoc>('outcome_batches');
    this.eventWriter = new GroupCommit(async (events) => {
      const id = batchId();
      await this.eventBatches.insertOne({
        _id: id,
        at: new Date().toISOString(),
        meetingIds: unique(events),
        events: JSON.stringify(events),
      });
      this.unsettled.set(id, events.length);
      return id;
    });
    // Settled events' bytes are not needed any more: dropping their batches keeps the store (and,
    // embedded, the heap) to what is still pending. The log reads from the outcomes.
    this.batchDeleter = new GroupCommit(
      async (ids) => {
        await this.eventBatches.deleteMany({ _id: { $in: ids } });
      },
      { delayMs: 200 },
    );
    this.outcomeWriter = new GroupCommit(
      async (entries) => {
        await this.outcomeBatches.insertOne({
          _id: batchId(),
          at: new Date().toISOString(),
          meetingIds: unique(entries),
          entries: JSON.stringify(entries),
        });
      },
      // Most outcomes are successes nobody waits for: gather them a little.
      { delayMs: 5 },
    );
  }

  async init(): Promise<void> {
    await this.eventBatches.createIndex({ meetingIds: 1 });
    await this.outcomeBatches.createIndex({ meetingIds: 1 });
  }

  /** Resolves with the id of its batch once the event is durably stored. */
  appendEvent(event: StoredEvent): Promise<string> {
    return this.eventWriter.add(event);
  }

  /** After a restart: an unsettled event found in `batchId`. */
  retain(batchId: string): void {
    this.unsettled.set(batchId, (this.unsettled.get(batchId) ?? 0) + 1);
  }

  /** Call once an event's terminal outcome is written: its batch goes when none is left unsettled. */
  release(batchId: string | null): void {
    if (batchId === null) return;
    const left = (this.unsettled.get(batchId) ?? 1) - 1;
    if (left > 0) {
      this.unsettled.set(batchId, left);
      return;
    }
    this.unsettled.delete(batchId);
    this.batchDeleter.add(batchId).catch(() => undefined); // a leftover batch is pruned later anyway
  }

  /** Resolves once the attempt or state change is durably stored. */
  appendOutcome(entry: OutcomeEntry): Promise<void> {
    return this.outcomeWriter.add(entry);
  }

  /** Waits for every append made so far to be written (before closing the store). */
  async flush(): Promise<void> {
    await Promise.all([this.eventWriter.flush(), this.outcomeWriter.flush(), this.batchDeleter.flush()]);
  }

  /** Every event of a meeting with its attempts and state, in sequence order. */
  async readMeeting(meetingId: string): Promise<EventRecord[]> {
    const [eventBatches, outcomeBatches] = await Promise.all([
      this.eventBatches.find({ meetingIds: meetingId }, { sort: { _id: 1 } }),
      this.outcomeBatches.find({ meetingIds: meetingId }, { sort: { _id: 1 } }),
    ]);
    const records = new Map<number, EventRecord>();
    for (const batch of eventBatches) {
      for (const e of entriesOf(batch.events)) {
        if (e.meetingId !== meetingId || records.has(e.sequence)) continue;
        records.set(e.sequence, { ...e, batchId: batch._id, ...notYetTried() });
      }
    }
    for (const batch of outcomeBatches) {
      for (const o of entriesOf(batch.entries)) {
        if (o.meetingId !== meetingId) continue;
        let record = records.get(o.sequence);
        if (!record) {
          // Settled and its batch dropped, or never arrived (missed): the outcomes tell it all.
          record = {
            batchId: null,
            meetingId,
            sequence: o.sequence,
            type: o.type,
            body: null,
            captionKey: null,
            receivedAt: null,
            ...notYetTried(),
          };
          records.set(o.sequence, record);
        }
        if (TERMINAL.has(record.state)) continue; // settled once, settled for good
        if (o.attempt) record.attempts.push(o.attempt);
        record.state = o.state;
        record.reason = o.reason;
        record.firstAttemptAt = o.firstAttemptAt ?? record.firstAttemptAt;
        record.nextAttemptAt = o.nextAttemptAt;
        if (TERMINAL.has(o.state)) record.finishedAt = o.at ?? batch.at;
      }
    }
    return [...records.values()].sort((a, b) => a.sequence - b.sequence);
  }

  /**
   * Forgets the log of meetings finished before `cutoff` (ISO): their registrations, and every
   * journal batch older than the cutoff whose meetings are all finished or forgotten.
   */
  async prune(cutoff: string): Promise<void> {
    const old = await this.callbacks.find({ finishedAt: { $lt: cutoff } }, { projection: { _id: 1 } });
    for (const { _id } of old) await this.callbacks.deleteOne({ _id });
    const open = new Set(
      (await this.callbacks.find({ finishedAt: null }, { projection: { _id: 1 } })).map((c) => c._id),
    );
    for (const journal of [this.eventBatches, this.outcomeBatches] as Array<Collection<BatchDoc>>) {
      const stale = await journal.find({ at: { $lt: cutoff } }, { projection: { _id: 1, meetingIds: 1 } });
      for (const batch of stale) {
        if (batch.meetingIds.every((id) => !open.has(id))) await journal.deleteOne({ _id: batch._id });
      }
    }
  }
}

function unique(items: Array<{ meetingId: string }>): string[] {
  return [...new Set(items.map((i) => i.meetingId))];
}
