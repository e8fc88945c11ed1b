/**
 * The emitter's store: the durable outbox and the delivery log in one.
 *
 * `callbacks`: one document per registered meeting (where its events go, whose secret signs
 * them, whether the receiver said 410 Gone, whether the meeting is finished).
 * `event_log` and `outcome_log`: append-only sequence logs keyed by meeting, written by group
 * commit. The event log holds the exact bytes of each event (written before it is sent) until its
 * meeting's lane closes; the outcome log holds every attempt and state change, for the delivery
 * log, until the meeting is pruned. One write carries the pages of every meeting in its group, so
 * the store keeps up at thousands of events per second; embedded, only a few numbers per page
 * stay in memory. A meeting's state is the fold of its entries (`readMeeting`).
 * `event_batches` and `outcome_batches` are the journals of earlier versions: still read, never
 * written, pruned with age. The signing secret is never stored here.
 */
import type { DeliveryOutcome } from '@notetaker/contracts';
import { GroupCommit, type Collection, type LogPage, type SequenceLog, type Store } from '@notetaker/store';

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
  /** When its lane closed (null while open: a later event of the meeting reopens it). */
  finishedAt: string | null;
  /** The last sequence settled when its lane closed: an event after it reopens the lane. */
  settledThrough?: number;
  [key: string]: unknown;
}

export type DeliveryState = DeliveryOutcome;

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
}

/**
 * One attempt and/or state change of one event. `pending` with an attempt is a failure to retry.
 * It names the event's type so the log still reads once the event's bytes are gone.
 * When it happened is its page's `at`: entries are written within milliseconds of being recorded.
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

/** Entries written before they shared their page's time carry their own. */
type StoredOutcome = OutcomeEntry & { at?: string };
/** Events written before the event log carry the time they arrived. */
type LegacyEvent = StoredEvent & { receivedAt?: string };

/** An event folded from the logs. */
export interface EventRecord {
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

/**
 * One page of a log: the entries of one meeting that were written together, and when. Its
 * `first`..`last` number the meeting's entries in that log in the order written (an event's
 * sequence cannot serve: events can arrive out of order, when a gap is filled).
 */
interface Page<T> {
  at: string;
  entries: T[];
}

/** Journals of earlier versions: batches of entries of several meetings, found by meeting. */
interface BatchDoc {
  _id: string;
  at: string;
  meetingIds: string[];
  [key: string]: unknown;
}
/** Entries as one JSON text, or (older still) as an array. */
type Entries<T> = string | T[];
interface EventBatchDoc extends BatchDoc {
  events: Entries<LegacyEvent>;
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

const READ_PAGES = 1000;

/**
 * Appends each group commit as one page per meeting. The last number of each meeting's pages is
 * remembered once known (asked of the log the first time), so a write asks nothing.
 */
class PageWriter<T extends { meetingId: string }> {
  private readonly lastOf = new Map<string, number>();
  readonly commit: GroupCommit<T>;

  constructor(
    private readonly log: SequenceLog,
    delayMs: number,
  ) {
    this.commit = new GroupCommit((entries) => this.write(entries), { delayMs });
  }

  /** Every page of a meeting, oldest first (read a thousand at a time). */
  async pages(meetingId: string): Promise<Array<Page<T>>> {
    const pages: Array<Page<T>> = [];
    for (let after = 0; ;) {
      const found = await this.log.pagesAfter(meetingId, after, READ_PAGES);
      for (const page of found) pages.push(JSON.parse(page.body) as Page<T>);
      if (found.length < READ_PAGES) return pages;
      after = found[found.length - 1].last;
    }
  }

  async drop(meetingIds: string[]): Promise<void> {
    await this.log.drop(meetingIds);
    for (const id of meetingIds) this.lastOf.delete(id);
  }

  private async write(entries: T[]): Promise<void> {
    const at = new Date().toISOString();
    const byMeeting = new Map<string, T[]>();
    for (const entry of entries) {
      const list = byMeeting.get(entry.meetingId);
      if (list) list.push(entry);
      else byMeeting.set(entry.meetingId, [entry]);
    }
    const pages: LogPage[] = [];
    for (const [key, list] of byMeeting) {
      const last = this.lastOf.get(key) ?? (await this.log.lastSequence(key));
      const page: Page<T> = { at, entries: list };
      pages.push({ key, first: last + 1, last: last + list.length, body: JSON.stringify(page) });
    }
    try {
      await this.log.append(pages);
    } catch (err) {
      // Part of it may be stored (MongoDB): ask the log again next time.
      for (const page of pages) this.lastOf.delete(page.key);
      throw err;
    }
    for (const page of pages) this.lastOf.set(page.key, page.last);
  }
}

export class DeliveryStore {
  readonly callbacks: Collection<CallbackDoc>;
  private readonly events: PageWriter<StoredEvent>;
  private readonly outcomes: PageWriter<OutcomeEntry>;
  private readonly legacyEvents: Collection<EventBatchDoc>;
  private readonly legacyOutcomes: Collection<OutcomeBatchDoc>;

  constructor(store: Store) {
    this.callbacks = store.collection<CallbackDoc>('callbacks');
    this.events = new PageWriter(store.sequenceLog('event_log'), 0);
    // Most outcomes are successes nobody waits for: gather them a little.
    this.outcomes = new PageWriter(store.sequenceLog('outcome_log'), 5);
    this.legacyEvents = store.collection<EventBatchDoc>('event_batches');
    this.legacyOutcomes = store.collection<OutcomeBatchDoc>('outcome_batches');
  }

  async init(): Promise<void> {
    await this.legacyEvents.createIndex({ meetingIds: 1 });
    await this.legacyOutcomes.createIndex({ meetingIds: 1 });
  }

  /** Resolves once the event is durably stored. */
  appendEvent(event: StoredEvent): Promise<void> {
    return this.events.commit.add(event);
  }

  /** Resolves once the attempt or state change is durably stored. */
  appendOutcome(entry: OutcomeEntry): Promise<void> {
    return this.outcomes.commit.add(entry);
  }

  /** A meeting's lane has closed: its events' bytes are not needed any more (its log stays). */
  async forgetEvents(meetingId: string): Promise<void> {
    // Its outcomes first: a crash right after must not leave an event with neither bytes nor outcome.
    await this.flush();
    await this.events.drop([meetingId]);
  }

  /** Waits for every append made so far to be written (before closing the store). */
  async flush(): Promise<void> {
    await Promise.all([this.events.commit.flush(), this.outcomes.commit.flush()]);
  }

  /** Every event of a meeting with its attempts and state, in sequence order. */
  async readMeeting(meetingId: string): Promise<EventRecord[]> {
    const [legacyEvents, legacyOutcomes, eventPages, outcomePages] = await Promise.all([
      this.legacyEvents.find({ meetingIds: meetingId }, { sort: { _id: 1 } }),
      this.legacyOutcomes.find({ meetingIds: meetingId }, { sort: { _id: 1 } }),
      this.events.pages(meetingId),
      this.outcomes.pages(meetingId),
    ]);
    const records = new Map<number, EventRecord>();
    const addEvents = (events: LegacyEvent[], at: string) => {
      for (const e of events) {
        if (e.meetingId !== meetingId || records.has(e.sequence)) continue;
        records.set(e.sequence, {
          meetingId,
          sequence: e.sequence,
          type: e.type,
          body: e.body,
          captionKey: e.captionKey,
          receivedAt: e.receivedAt ?? at,
          ...notYetTried(),
        });
      }
    };
    const addOutcomes = (outcomes: StoredOutcome[], at: string) => {
      for (const o of outcomes) {
        if (o.meetingId !== meetingId) continue;
        let record = records.get(o.sequence);
        if (!record) {
          // Settled and its bytes dropped, or never arrived (missed): the outcomes tell it all.
          record = {
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
        if (TERMINAL.has(o.state)) record.finishedAt = o.at ?? at;
      }
    };
    for (const batch of legacyEvents) addEvents(entriesOf(batch.events), batch.at);
    for (const page of eventPages) addEvents(page.entries, page.at);
    for (const batch of legacyOutcomes) addOutcomes(entriesOf(batch.entries), batch.at);
    for (const page of outcomePages) addOutcomes(page.entries, page.at);
    return [...records.values()].sort((a, b) => a.sequence - b.sequence);
  }

  /** Registrations whose lane closed after their final status since `since` (ISO), newest first. */
  async closedSince(since: string, limit: number): Promise<CallbackDoc[]> {
    const docs = await this.callbacks.find(
      { state: 'active', finishedAt: { $gte: since } },
      { sort: { finishedAt: -1 }, limit },
    );
    return docs.filter((doc) => doc.finalSequence != null);
  }

  /**
   * Forgets the log of meetings finished before `cutoff` (ISO): their registrations and pages,
   * and every earlier version's journal batch older than the cutoff whose meetings are all
   * finished or forgotten.
   */
  async prune(cutoff: string): Promise<void> {
    const old = (await this.callbacks.find({ finishedAt: { $lt: cutoff } }, { projection: { _id: 1 } })).map(
      (c) => c._id,
    );
    // Pages first: a crash in between leaves registrations that the next prune finds again.
    await this.events.drop(old);
    await this.outcomes.drop(old);
    for (const _id of old) await this.callbacks.deleteOne({ _id });
    const open = new Set(
      (await this.callbacks.find({ finishedAt: null }, { projection: { _id: 1 } })).map((c) => c._id),
    );
    for (const journal of [this.legacyEvents, this.legacyOutcomes] as Array<Collection<BatchDoc>>) {
      const stale = await journal.find({ at: { $lt: cutoff } }, { projection: { _id: 1, meetingIds: 1 } });
      for (const batch of stale) {
        if (batch.meetingIds.every((id) => !open.has(id))) await journal.deleteOne({ _id: batch._id });
      }
    }
  }
}
