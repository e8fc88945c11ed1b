/**
 * A meeting-session worker without bots, for the placement bench: it speaks the worker protocol
 * over NATS exactly as services/meeting-session/src/worker/worker.ts does, with the worker's own
 * parts where they carry the protocol (its seats and queue-group membership rule, its event streams
 * and their outbox, the verbs of protocol.ts), and a simulated meeting in place of an actor and its
 * browser: placed, it emits `joining`, then `live` after `joinMs`, and stays live until it is
 * stopped (`leaving`, then `ended` / `stopped`, as the actor's way out) or released.
 *
 * drain() is worker.stop() on SIGTERM with a grace: out of the queue group at once, the lease still
 * renewed, the meetings left to end by themselves for up to the grace, the rest ended
 * `worker_shutdown`, then the last heartbeat says it leaves.
 */
import { queueGroup } from '@notetaker/contracts';
import { answer, call, type Bus, type Subscription } from '@notetaker/bus';
import { silentLogger } from '@notetaker/observability';
import { EventStream } from '../../../services/meeting-session/src/actor/event-stream.js';
import { newWorkerId } from '../../../services/meeting-session/src/ids.js';
import {
  protocol,
  subjects,
  type ActorState,
  type PlaceReply,
  type PlaceRequest,
} from '../../../services/meeting-session/src/protocol.js';
import { EventOutbox } from '../../../services/meeting-session/src/worker/event-outbox.js';
import { Seats } from '../../../services/meeting-session/src/worker/seats.js';

export interface SimulatedWorkerOptions {
  bus: Bus;
  capacity: number;
  /** The lease renewal period: WORKER_LEASE_MS / 3, as the real config derives it. */
  heartbeatMs: number;
  /** From placement to `live` (a real bot takes seconds to be admitted). */
  joinMs: number;
  /** Before the first renewal timer: workers started together do not beat in step. */
  firstBeatDelayMs?: number;
}

/** How a meeting left this worker. */
export type Departure = 'stopped' | 'released' | 'worker_shutdown';

class SimulatedMeeting {
  status: ActorState['status'] = 'joining';
  readonly stream: EventStream;
  private stopSub: Subscription | null = null;
  private liveTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly meetingId: string,
    private readonly worker: SimulatedWorker,
    outbox: EventOutbox,
  ) {
    this.stream = new EventStream({
      meetingId,
      outbox,
      state: () => ({
        status: this.status,
        participantCount: 0,
        segmentCount: 0,
        participants: [],
        recording: null,
        transcriptionSource: this.status === 'live' ? 'captions' : null,
      }),
      onFenced: () => this.release(),
    });
  }

  start(bus: Bus, joinMs: number): void {
    this.stopSub = bus.serve(subjects.actorStop(this.meetingId), () => {
      void this.end('stopped');
      return { meetingId: this.meetingId, status: 'stopping' };
    });
    this.transition('joining', null);
    this.liveTimer = setTimeout(() => {
      if (this.status === 'joining') this.transition('live', null);
    }, joinMs);
  }

  /** The actor's way out: `leaving`, the seat freed, `ended` with the reason once stored. */
  async end(reason: 'stopped' | 'worker_shutdown'): Promise<void> {
    if (this.closed || this.status === 'leaving') return;
    this.worker.seats.willFree(this.meetingId);
    if (this.liveTimer) clearTimeout(this.liveTimer);
    this.transition('leaving', reason);
    this.worker.seats.free(this.meetingId);
    this.transition('ended', reason);
    await this.stream.drained();
    this.exit(reason);
  }

  /** No longer ours (the registry says so): nothing more is written. */
  release(): void {
    if (this.closed) return;
    if (this.liveTimer) clearTimeout(this.liveTimer);
    this.stream.stop();
    this.exit('released');
  }

  private transition(to: ActorState['status'], reason: string | null): void {
    const previousStatus = to === 'joining' ? null : this.status;
    this.status = to;
    this.stream.emit('meeting_status', { status: to, previousStatus, reason });
  }

  private exit(how: Departure): void {
    if (this.closed) return;
    this.closed = true;
    void this.stopSub?.unsubscribe();
    this.worker.exited(this.meetingId, how);
  }
}

export class SimulatedWorker {
  readonly workerId = newWorkerId();
  readonly seats: Seats;
  /** Meetings that left, by how (a drain's `worker_shutdown` is a meeting the scale-in cut). */
  readonly departures: Record<Departure, number> = { stopped: 0, released: 0, worker_shutdown: 0 };
  /** Placements this worker refused (full, or draining). */
  refused = 0;
  private readonly meetings = new Map<string, SimulatedMeeting>();
  private readonly outbox: EventOutbox;
  private placeSub: Subscription | null = null;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  private idle: Array<() => void> = [];

  constructor(private readonly options: SimulatedWorkerOptions) {
    this.seats = new Seats(options.capacity, 5_000, () => this.updateMembership());
    this.outbox = new EventOutbox({ bus: options.bus, logger: silentLogger(), workerId: this.workerId });
  }

  /** Its pod's deletion cost: the live meetings (worker/pod-deletion-cost.ts). */
  get liveMeetings(): number {
    return this.meetings.size;
  }

  meetingIds(): string[] {
    return [...this.meetings.keys()];
  }

  /** As startWorker: a first heartbeat, then into the queue group, then renewals. */
  async start(): Promise<void> {
    await this.heartbeat();
    this.updateMembership();
    const begin = setTimeout(() => {
      this.timer = setInterval(() => void this.heartbeat(), this.options.heartbeatMs);
    }, this.options.firstBeatDelayMs ?? 0);
    this.timer = begin;
  }

  /** SIGTERM with a grace (worker.stop()); resolves once the worker has left. */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    this.seats.refuseWaiting();
    this.updateMembership();
    if (this.meetings.size > 0) {
      const idle = new Promise<void>((resolve) => this.idle.push(resolve));
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([idle, new Promise((resolve) => (timeout = setTimeout(resolve, graceMs)))]);
      clearTimeout(timeout);
    }
    await Promise.all([...this.meetings.values()].map((m) => m.end('worker_shutdown')));
    this.stopTimer();
    await this.heartbeat(true);
  }

  /** Stops renewing and answering, saying nothing (the bench closes or kills the connection). */
  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    void this.placeSub?.unsubscribe();
    this.placeSub = null;
  }

  exited(meetingId: string, how: Departure): void {
    this.seats.free(meetingId);
    this.meetings.delete(meetingId);
    this.departures[how]++;
    if (this.meetings.size === 0) for (const wake of this.idle.splice(0)) wake();
  }

  private updateMembership(): void {
    const room = !this.stopping && this.seats.hasRoom();
    if (room && !this.placeSub) {
      this.placeSub = answer(this.options.bus, protocol.place, (spec) => this.place(spec), {
        queue: queueGroup('meetings'),
      });
    } else if (!room && this.placeSub) {
      void this.placeSub.unsubscribe();
      this.placeSub = null;
    }
  }

  private async place(spec: PlaceRequest): Promise<PlaceReply> {
    if (this.stopping || !(await this.seats.take(spec.meetingId))) {
      this.refused++;
      return { accepted: false };
    }
    const meeting = new SimulatedMeeting(spec.meetingId, this, this.outbox);
    this.meetings.set(spec.meetingId, meeting);
    meeting.start(this.options.bus, this.options.joinMs);
    return { accepted: true, workerId: this.workerId };
  }

  private async heartbeat(leaving = false): Promise<void> {
    try {
      const reply = await call(
        this.options.bus,
        protocol.heartbeat,
        {
          workerId: this.workerId,
          meetingIds: this.meetingIds(),
          active: this.seats.inUse,
          capacity: this.options.capacity,
          leaving,
          browser: true,
        },
        { timeoutMs: Math.max(1000, this.options.heartbeatMs) },
      );
      for (const meetingId of reply.release) this.meetings.get(meetingId)?.release();
    } catch {
      // As the real worker: a failed renewal is retried on the next beat.
    }
  }
}
