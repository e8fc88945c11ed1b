import type { EventHandler, RequestHandler } from './port.js';
import { InflightHandlers } from './inflight.js';
import { subjectMatches } from './subject-match.js';
import type { PendingReply } from './pending-reply.js';

/** What a connection hands the broker; `receive` runs on the connection that owns the subscription. */
export interface MemorySubscriber {
  receive(delivery: Delivery): void;
}

export interface MemorySub {
  readonly pattern: string;
  /** Split pattern, only for wildcard patterns (literal ones are found through a map). */
  readonly tokens: readonly string[] | undefined;
  readonly queue: string | undefined;
  readonly handler: RequestHandler | EventHandler;
  /** Serve handlers answer requests; plain subscribers also see requests but cannot answer. */
  readonly serves: boolean;
  readonly owner: MemorySubscriber;
  readonly inflight: InflightHandlers;
}

export interface Delivery {
  readonly sub: MemorySub;
  readonly subject: string;
  readonly json: string | undefined;
  readonly reply: PendingReply | undefined;
}

interface QueueGroup {
  readonly members: MemorySub[];
  next: number;
}

/** Who receives a message on one concrete subject; cached because most traffic repeats subjects. */
interface Route {
  readonly plain: readonly MemorySub[];
  readonly groups: readonly QueueGroup[];
}

type Work = Delivery | (() => void);

const EMPTY_ROUTE: Route = { plain: [], groups: [] };
// Past this many cached subjects (e.g. one per meeting id) the cache is rebuilt rather than grown.
const MAX_CACHED_ROUTES = 10_000;
// Deliveries chained through microtasks starve timers and sockets; after this many in one macrotask
// turn the broker yields through setImmediate.
const MICROTASK_BURST = 5_000;

/**
 * The shared "server" of the in-process bus. Connections (MemoryBus) register subscriptions here;
 * every message goes through one FIFO, so messages of one publisher on one subject keep their order.
 */
export class MemoryBroker {
  private readonly literal = new Map<string, MemorySub[]>();
  private readonly wildcard: MemorySub[] = [];
  private readonly groups = new Map<string, QueueGroup>();
  private readonly routes = new Map<string, Route>();
  private pending: Work[] = [];
  private spare: Work[] = [];
  private scheduled = false;
  private deliveredThisTurn = 0;
  private turnResetScheduled = false;

  add(sub: MemorySub): void {
    if (sub.tokens) this.wildcard.push(sub);
    else appendTo(this.literal, sub.pattern, sub);
    if (sub.queue !== undefined) {
      const key = groupKey(sub);
      const group = this.groups.get(key);
      if (group) group.members.push(sub);
      else this.groups.set(key, { members: [sub], next: 0 });
    }
    this.routes.clear();
  }

  remove(sub: MemorySub): void {
    if (sub.tokens) removeFrom(this.wildcard, sub);
    else {
      const list = this.literal.get(sub.pattern);
      if (list && removeFrom(list, sub) && list.length === 0) this.literal.delete(sub.pattern);
    }
    if (sub.queue !== undefined) {
      const key = groupKey(sub);
      const group = this.groups.get(key);
      if (group && removeFrom(group.members, sub) && group.members.length === 0) this.groups.delete(key);
    }
    this.routes.clear();
  }

  /** Queues one message for every matching subscriber; returns false when nobody matched. */
  dispatch(subject: string, json: string | undefined, reply: PendingReply | undefined): boolean {
    const route = this.route(subject);
    const { plain, groups } = route;
    if (plain.length === 0 && groups.length === 0) return false;
    for (let i = 0; i < plain.length; i++) this.pending.push({ sub: plain[i], subject, json, reply });
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i];
      const members = group.members;
      if (members.length === 0) continue;
      const sub = members[group.next++ % members.length];
      this.pending.push({ sub, subject, json, reply });
    }
    this.schedule();
    return true;
  }

  hasSubscribers(subject: string): boolean {
    const route = this.route(subject);
    return route.plain.length > 0 || route.groups.length > 0;
  }

  /** Resolves once everything queued before this call has been handed to its handler. */
  flush(): Promise<void> {
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.schedule();
    });
  }

  private route(subject: string): Route {
    let route = this.routes.get(subject);
    if (route) return route;
    route = this.computeRoute(subject);
    if (this.routes.size >= MAX_CACHED_ROUTES) this.routes.clear();
    this.routes.set(subject, route);
    return route;
  }

  private computeRoute(subject: string): Route {
    const matched: MemorySub[] = [];
    const literal = this.literal.get(subject);
    if (literal) matched.push(...literal);
    for (const sub of this.wildcard) if (subjectMatches(sub.tokens!, subject)) matched.push(sub);
    if (matched.length === 0) return EMPTY_ROUTE;
    const plain: MemorySub[] = [];
    const groups = new Set<QueueGroup>();
    for (const sub of matched) {
      if (sub.queue === undefined) plain.push(sub);
      else groups.add(this.groups.get(groupKey(sub))!);
    }
    return { plain, groups: [...groups] };
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.deliveredThisTurn < MICROTASK_BURST) queueMicrotask(this.drain);
    else setImmediate(this.drain);
  }

  private readonly drain = (): void => {
    // Swap buffers: work queued by handlers goes to the next batch, so one batch cannot grow forever.
    const batch = this.pending;
    this.pending = this.spare;
    this.scheduled = false;
    for (let i = 0; i < batch.length; i++) {
      const work = batch[i];
      if (typeof work === 'function') work();
      else work.sub.owner.receive(work);
    }
    this.countTurn(batch.length);
    batch.length = 0;
    this.spare = batch;
  };

  private countTurn(delivered: number): void {
    this.deliveredThisTurn += delivered;
    if (this.turnResetScheduled) return;
    this.turnResetScheduled = true;
    setImmediate(() => {
      this.deliveredThisTurn = 0;
      this.turnResetScheduled = false;
    });
  }
}

function groupKey(sub: MemorySub): string {
  // NATS keys a queue group by subscription subject and group name, not by name alone.
  return `${sub.pattern}\u0000${sub.queue}`;
}

function appendTo(map: Map<string, MemorySub[]>, key: string, sub: MemorySub): void {
  const list = map.get(key);
  if (list) list.push(sub);
  else map.set(key, [sub]);
}

function removeFrom(list: MemorySub[], sub: MemorySub): boolean {
  const index = list.indexOf(sub);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}
