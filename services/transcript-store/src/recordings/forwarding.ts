/**
 * The recording routes on the bus, for any number of replicas. Requests reach any replica of the
 * queue group; those that write (append, finish, delete) are done by the recording's writer
 * (writers.ts): this replica when it holds the lease or takes it, otherwise the holder, to which
 * the request is handed on its own subject (`instance.transcripts.<replica>.recording-*`). A
 * request handed on is never handed on again: a holder that lost the lease meanwhile answers a
 * retryable `recording_busy`, and so does this replica when the holder does not answer (a dead
 * replica's lease runs out within its ttl, then this one takes over). Reads are answered by any
 * replica from the store and the storage.
 *
 * Requests waiting here for the holder are bounded as the holder's chains are (chains.ts).
 */
import { call, answer, type Bus, type Subscription } from '@notetaker/bus';
import {
  instanceSubject,
  parseOrBadRequest,
  queueGroup,
  routes,
  ServiceError,
  type ParsedRequestOf,
  type ReplyOf,
  type RequestOf,
} from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { BoundedChains, DEFAULT_CHAIN_LIMITS, type BusyReason, type ChainLimits } from './chains.js';
import { recordingErrors } from './errors.js';
import type { RecordingLibrary } from './library.js';
import { retryAfter } from './writers.js';

/** How long a request handed to the holder may take (the worker retries a batch anyway). */
export const FORWARD_TIMEOUT_MS = 10_000;

const writing = {
  append: routes.recordings.append,
  finish: routes.recordings.finish,
  delete: routes.recordings.delete,
} as const;
type Verb = keyof typeof writing;
type RequestFor<V extends Verb> = ParsedRequestOf<(typeof writing)[V]>;
type ReplyFor<V extends Verb> = ReplyOf<(typeof writing)[V]>;

export type ForwardOutcome = 'answered' | 'refused' | 'unanswered';

export interface RecordingRoutesOptions {
  bus: Bus;
  library: RecordingLibrary;
  logger: Logger;
  forwardTimeoutMs?: number;
  chains?: ChainLimits;
  onBusy?: (reason: BusyReason) => void;
  onForwarded?: (verb: Verb, outcome: ForwardOutcome) => void;
}

export class RecordingRoutes {
  /** Requests waiting for the holder's answer, per meeting (in order, bounded). */
  readonly forwards: BoundedChains;
  private readonly subs: Subscription[] = [];

  constructor(private readonly options: RecordingRoutesOptions) {
    this.forwards = new BoundedChains(options.chains ?? DEFAULT_CHAIN_LIMITS, options.onBusy);
  }

  serve(): void {
    const { bus, library } = this.options;
    const queue = { queue: queueGroup('transcripts') };
    const id = library.writers.id;
    this.subs.push(
      answer(bus, routes.recordings.append, (req) => this.routed('append', req), queue),
      answer(bus, routes.recordings.finish, (req) => this.routed('finish', req), queue),
      answer(bus, routes.recordings.delete, (req) => this.routed('delete', req), queue),
      answer(bus, routes.recordings.get, (req) => library.get(req.meetingId), queue),
      answer(
        bus,
        routes.recordings.read,
        async (req) => ({ data: (await library.read(req.meetingId, req.start, req.end)).toString('base64') }),
        queue,
      ),
      answer(bus, routes.recordings.expire, (req) => library.expire(req.before), queue),
    );
    for (const verb of Object.keys(writing) as Verb[]) {
      // Handed on by another replica: done here, or refused, never handed on again.
      this.subs.push(
        bus.serve(instanceSubject('transcripts', id, subjectVerb(verb)), (data) =>
          this.local(verb, parseOrBadRequest(writing[verb].request, data) as RequestFor<typeof verb>),
        ),
      );
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.subs.map((sub) => sub.unsubscribe()));
    await this.forwards.idle();
  }

  private async routed<V extends Verb>(verb: V, req: RequestFor<V>): Promise<ReplyFor<V>> {
    const startedAt = verb === 'append' ? (req as RequestFor<'append'>).startedAt : undefined;
    const claim = await this.options.library.writerOf(req.meetingId, startedAt);
    if (claim.kind !== 'theirs') return this.local(verb, req);
    const bytes = verb === 'append' ? Math.floor(((req as RequestFor<'append'>).data.length * 3) / 4) : 0;
    return this.forwards.run(req.meetingId, bytes, async () => {
      // Looked at again once its turn came: the lease may have come here meanwhile.
      const now = await this.options.library.writerOf(req.meetingId, startedAt);
      if (now.kind !== 'theirs') return this.local(verb, req);
      return this.forward(verb, req, now.holder, now.untilMs);
    });
  }

  private local<V extends Verb>(verb: V, req: RequestFor<V>): Promise<ReplyFor<V>> {
    const { library } = this.options;
    if (verb === 'append') return library.append(req as RequestFor<'append'>) as Promise<ReplyFor<V>>;
    if (verb === 'finish') return library.finish(req as RequestFor<'finish'>) as Promise<ReplyFor<V>>;
    return library.delete(req.meetingId) as Promise<ReplyFor<V>>;
  }

  private async forward<V extends Verb>(
    verb: V,
    req: RequestFor<V>,
    holder: string,
    untilMs: number,
  ): Promise<ReplyFor<V>> {
    const route = { ...writing[verb], subject: instanceSubject('transcripts', holder, subjectVerb(verb)) };
    try {
      // The parsed request is the request again (the schemas fill no defaults in these).
      const reply = (await call(this.options.bus, route, req as RequestOf<typeof route>, {
        timeoutMs: this.options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
      })) as ReplyFor<V>;
      this.options.onForwarded?.(verb, 'answered');
      return reply;
    } catch (err) {
      const unanswered = !(err instanceof ServiceError) || err.code === 'no_responders' || err.code === 'bus_timeout';
      this.options.onForwarded?.(verb, unanswered ? 'unanswered' : 'refused');
      if (!unanswered) throw err; // the holder's own answer (a gap, a full disk, busy)
      const gone = (err as ServiceError).code === 'no_responders';
      const why = gone
        ? `the replica that writes it (${holder}) is gone; its lease runs out in ${retryAfter(untilMs)} s`
        : `the replica that writes it (${holder}) did not answer in time`;
      this.options.logger.warn({ meetingId: req.meetingId, holder, verb }, `recording ${verb} not done: ${why}`);
      throw recordingErrors.busy(req.meetingId, why, gone ? retryAfter(untilMs) : 1);
    }
  }
}

/** The verb on a replica's own subject: `recording-append`, as on the queue group's. */
const subjectVerb = (verb: Verb) => `recording-${verb}`;
