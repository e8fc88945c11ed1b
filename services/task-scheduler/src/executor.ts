/**
 * Starts and finishes executions. One run per task at a time, across instances: the running
 * record carries a unique `runningKey`, so a second start fails in the store, not by luck.
 *
 * A recorded run waits in a queue (run-queue.ts) until one of `maxConcurrent` slots is free; only
 * then does it get an AbortController, which fires on timeout (status `timeout`), on deletion of
 * its task (the record goes with the task) and on shutdown (status `stale`), and reaches the model
 * request and every tool call. Time spent waiting counts toward the timeout, since the execution
 * is running from the user's point of view: a run still waiting at its deadline is recorded
 * `timeout` without running.
 *
 * At a minute boundary with thousands of tasks, no run is handed a slot until every record of the
 * tick is stored and the tasks' lastRunAt set (one write per distinct start time): otherwise the
 * first runs' model calls and writes compete with the records of the rest of the tick, and
 * recording the tick takes many times longer. The hold is capped, so a store that never catches
 * up delays runs, never starves them.
 */
import { randomBytes } from 'node:crypto';
import { errors, ServiceError } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { isoTime } from '@notetaker/iso-time';
import type { Collection } from '@notetaker/store';
import type { ExecutionLog, RunOutcome } from './execution-log.js';
import type { SchedulerMetrics } from './metrics.js';
import type { ExecutionDoc, TaskDoc, TaskSnapshot } from './records.js';
import { RunError, type TokenUsage } from './runner/agent.js';
import { RunQueue } from './run-queue.js';
import { SkillError } from './skills.js';

export interface Runner {
  run(task: TaskSnapshot, signal: AbortSignal, usage: TokenUsage): Promise<string>;
}

/** Why a run was aborted. */
export class ExecutionStop extends Error {
  constructor(readonly kind: 'timeout' | 'cancelled' | 'shutdown') {
    super(kind);
  }
}

export interface StartRequest {
  task: TaskSnapshot;
  executionType: ExecutionDoc['executionType'];
  triggerType: ExecutionDoc['triggerType'];
  /** The cron tick (epoch ms) for scheduled runs. */
  scheduledAt?: number;
}

export type StartResult =
  { started: true; execution: ExecutionDoc } | { started: false; reason: 'running' | 'fired_elsewhere' };

/** How the start of one due task went: its result, or why it could not be recorded. */
export type TickReport = (task: TaskSnapshot, scheduledAt: number, outcome: StartResult | { error: unknown }) => void;

/** The tasks due at one cron tick. */
export interface DueTick {
  tasks: TaskSnapshot[];
  scheduledAt: number;
}

interface Active {
  task: TaskSnapshot;
  doc: ExecutionDoc;
  startedAt: number;
  deadline: number;
  /** The task's lastRunAt write: its outcome's lastStatus must come after it. */
  marked?: Promise<unknown>;
  /** Created once it has a slot; a cancel before that is remembered here. */
  controller?: AbortController;
  cancelled?: boolean;
  /** Settles once its outcome is recorded (or its record removed). */
  done?: Promise<void>;
}

export interface ExecutorOptions {
  log: ExecutionLog;
  tasks: Collection<TaskDoc>;
  runner: Runner;
  instanceId: string;
  maxConcurrent: number;
  logger: Logger;
  metrics: SchedulerMetrics;
  /** Longest hold of the slots while a tick is recorded (default 10 s). */
  maxHoldMs?: number;
}

// Execution ids: time, a random part per process, a counter. Unique without a random draw per id.
const ID_PREFIX = randomBytes(4).toString('hex');
let idCounter = 0;
export function newExecutionId(now = Date.now()): string {
  return `exec_${now}_${ID_PREFIX}${(++idCounter).toString(36)}`;
}

/** Records of a tick written at once: enough to keep a remote store busy, few enough to die young. */
const RECORDS_IN_FLIGHT = 64;

const ALREADY_RUNNING: Promise<StartResult> = Promise.resolve({ started: false, reason: 'running' });

export class Executor {
  private readonly active = new Map<string, Active>();
  private readonly queue = new RunQueue<Active>((entry) => this.settleWaiting(entry, new ExecutionStop('timeout')));
  private free: number;
  /** Ticks whose records are being written: no run gets a slot meanwhile (see the header). */
  private holds = 0;
  private stopping = false;

  constructor(private readonly options: ExecutorOptions) {
    this.free = options.maxConcurrent;
  }

  /** Records the execution as running; it runs once a slot is free. */
  async start(request: StartRequest): Promise<StartResult> {
    if (this.stopping) throw errors.unavailable('The task scheduler is stopping');
    const tick = request.scheduledAt === undefined ? undefined : new Date(request.scheduledAt).toISOString();
    const entry = this.prepare(request.task, request.executionType, request.triggerType, tick);
    if (!entry) return ALREADY_RUNNING;
    const result = await this.record(entry, request.executionType === 'manual', request.scheduledAt);
    if (result.started) {
      entry.marked = this.markStarted([entry]);
      this.enqueue(entry);
    }
    return result;
  }

  /**
   * Starts the executions of cron ticks and tells `report` how each start went. First every
   * execution is created (startedAt, id, its place in `active`) in one tight loop over all the
   * ticks, so the 10,000th task of a minute boundary starts a few milliseconds after the first;
   * then the records are written, RECORDS_IN_FLIGHT at a time. Writing all of them at once queued
   * 10,000 write chains whose closures, copies and promises outlived the young generation together:
   * V8 promoted ~35 MB of them to the old generation within a second, most of the boundary's peak.
   */
  startTicks(ticks: DueTick[], report: TickReport): void {
    if (this.stopping) {
      const error = errors.unavailable('The task scheduler is stopping');
      for (const { tasks, scheduledAt } of ticks) for (const task of tasks) report(task, scheduledAt, { error });
      return;
    }
    const due: Array<{ task: TaskSnapshot; scheduledAt: number; entry: Active | null }> = [];
    for (const { tasks, scheduledAt } of ticks) {
      const tick = new Date(scheduledAt).toISOString();
      for (const task of tasks) due.push({ task, scheduledAt, entry: this.prepare(task, 'scheduled', 'cron', tick) });
    }
    const recorded: Active[] = [];
    let next = 0;
    const writer = async () => {
      while (next < due.length) {
        const { task, scheduledAt, entry } = due[next++];
        if (!entry) {
          report(task, scheduledAt, { started: false, reason: 'running' });
          continue;
        }
        try {
          const result = await this.record(entry, false, scheduledAt);
          if (result.started) recorded.push(entry);
          report(task, scheduledAt, result);
        } catch (error) {
          report(task, scheduledAt, { error });
        }
      }
    };
    const writers = Array.from({ length: Math.min(RECORDS_IN_FLIGHT, due.length) }, writer);
    // Once every record is in: lastRunAt for all of them, then their runs may take slots.
    this.hold(
      Promise.all(writers).then(() => {
        const marked = this.markStarted(recorded);
        for (const entry of recorded) {
          entry.marked = marked;
          this.enqueue(entry);
        }
        return marked;
      }),
    );
  }

  /** Aborts this task's run in this process, if any; its record is removed with the task. */
  cancel(name: string): void {
    const entry = this.active.get(name);
    if (!entry) return;
    entry.cancelled = true;
    if (entry.controller) entry.controller.abort(new ExecutionStop('cancelled'));
    else if (this.queue.remove(entry)) this.settleWaiting(entry, new ExecutionStop('cancelled'));
  }

  isRunningHere(name: string): boolean {
    return this.active.has(name);
  }

  /** Aborts every run (they are recorded `stale`) and waits for their records. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const entry of this.queue.drain()) this.settleWaiting(entry, new ExecutionStop('shutdown'));
    const entries = [...this.active.values()];
    for (const entry of entries) entry.controller?.abort(new ExecutionStop('shutdown'));
    await Promise.allSettled(entries.map((e) => e.done));
  }

  /** Creates the execution and reserves the task, or null when it already runs here. */
  private prepare(
    task: TaskSnapshot,
    executionType: ExecutionDoc['executionType'],
    triggerType: ExecutionDoc['triggerType'],
    tick: string | undefined,
  ): Active | null {
    if (this.active.has(task.name)) return null;
    const startedAt = Date.now();
    const id = newExecutionId(startedAt);
    const doc: ExecutionDoc = {
      _id: id,
      executionId: id,
      executionType,
      name: task.name,
      status: 'running',
      triggerType,
      startedAt: isoTime(startedAt),
      completedAt: null,
      durationMs: null,
      resultSummary: null,
      inputTokens: 0,
      outputTokens: 0,
      instanceId: this.options.instanceId,
      runningKey: task.name,
    };
    if (tick !== undefined) doc.tickKey = `${task.name}@${tick}`;
    const entry: Active = { task, doc, startedAt, deadline: startedAt + task.timeoutMs };
    this.active.set(task.name, entry);
    return entry;
  }

  private async record(entry: Active, manual: boolean, scheduledAt: number | undefined): Promise<StartResult> {
    const { task, doc, startedAt } = entry;
    try {
      await this.options.log.insertRunning(doc);
    } catch (err) {
      this.active.delete(task.name);
      if (!(err instanceof ServiceError && err.code === 'duplicate_key')) throw err;
      if (manual) return { started: false, reason: 'running' };
      const running = await this.options.log.isRunning(task.name).catch(() => true);
      return { started: false, reason: running ? 'running' : 'fired_elsewhere' };
    }
    if (scheduledAt !== undefined) {
      this.options.metrics.tickLateness.observe((startedAt - scheduledAt) / 1000);
      this.options.metrics.tickRecordedLateness.observe((Date.now() - scheduledAt) / 1000);
    }
    this.options.metrics.running.inc();
    this.options.logger.info(
      { task: task.name, executionId: doc.executionId, trigger: doc.triggerType },
      'execution started',
    );
    return { started: true, execution: doc };
  }

  /** The tasks' lastRunAt: one write per distinct start time (a tick's starts share a few). */
  private markStarted(entries: Active[]): Promise<unknown> {
    const byStart = new Map<string, string[]>();
    for (const { doc } of entries) {
      const names = byStart.get(doc.startedAt);
      if (names) names.push(doc.name);
      else byStart.set(doc.startedAt, [doc.name]);
    }
    return Promise.all(
      [...byStart].map(([lastRunAt, names]) =>
        this.options.tasks
          .updateMany({ _id: { $in: names } }, { $set: { lastRunAt, lastStatus: 'running' } })
          .catch((err: unknown) =>
            this.options.logger.warn({ err, tasks: names.length }, 'could not record lastRunAt'),
          ),
      ),
    );
  }

  private enqueue(entry: Active): void {
    if (entry.cancelled) return this.settleWaiting(entry, new ExecutionStop('cancelled'));
    if (this.stopping) return this.settleWaiting(entry, new ExecutionStop('shutdown'));
    this.queue.push(entry);
    this.options.metrics.waiting.set(this.queue.length);
    this.dispatch();
  }

  /** Holds the slots until `recording` settles, or for `maxHoldMs` at most. */
  private hold(recording: Promise<unknown>): void {
    this.holds++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(cap);
      this.holds--;
      this.dispatch();
    };
    const cap = setTimeout(release, this.options.maxHoldMs ?? 10_000);
    void recording.then(release, release);
  }

  /** Hands free slots to the oldest waiting runs. */
  private dispatch(): void {
    while (this.holds === 0 && this.free > 0) {
      const entry = this.queue.shift();
      if (!entry) break;
      this.free--;
      entry.done = this.run(entry).finally(() => {
        this.free++;
        this.dispatch();
      });
    }
    this.options.metrics.waiting.set(this.queue.length);
  }

  private async run(entry: Active): Promise<void> {
    const { task } = entry;
    const controller = new AbortController();
    entry.controller = controller;
    const { signal } = controller;
    // Timers may fire a millisecond before the wall clock says the time is up: wait out the rest,
    // so a run stopped for its timeout never records a duration below it.
    let timer: NodeJS.Timeout;
    const expire = () => {
      if (Date.now() < entry.deadline) timer = setTimeout(expire, entry.deadline - Date.now());
      else controller.abort(new ExecutionStop('timeout'));
    };
    timer = setTimeout(expire, Math.max(0, entry.deadline - Date.now()));
    if (entry.cancelled) controller.abort(new ExecutionStop('cancelled'));
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let outcome: RunOutcome;
    try {
      if (signal.aborted) throw signal.reason;
      const answer = await this.options.runner.run(task, signal, usage);
      outcome = { status: 'completed', resultSummary: answer, ...usage };
    } catch (err) {
      outcome = { ...failure(err, signal.aborted ? signal.reason : null, task), ...usage };
    } finally {
      clearTimeout(timer);
    }
    const stop: unknown = signal.reason;
    await this.settle(entry, stop instanceof ExecutionStop && stop.kind === 'cancelled' ? null : outcome);
  }

  /** A run that never got a slot: timed out waiting, cancelled, or the service stops. */
  private settleWaiting(entry: Active, stop: ExecutionStop): void {
    const outcome =
      stop.kind === 'cancelled' ? null : { ...failure(stop, stop, entry.task), inputTokens: 0, outputTokens: 0 };
    entry.done = this.settle(entry, outcome);
    this.options.metrics.waiting.set(this.queue.length);
  }

  /** Records the outcome (null: a cancelled run, whose record goes with its task) and lets the task go. */
  private async settle(entry: Active, outcome: RunOutcome | null): Promise<void> {
    const { task, doc } = entry;
    try {
      await entry.marked;
      if (!outcome) {
        await this.options.log.remove(doc._id);
        return;
      }
      await this.options.log.finish(doc, outcome, Date.now());
      this.options.metrics.executions.inc({ status: outcome.status });
      this.options.logger.info(
        {
          task: task.name,
          executionId: doc.executionId,
          status: outcome.status,
          durationMs: Date.now() - entry.startedAt,
        },
        'execution finished',
      );
    } catch (err) {
      this.options.logger.error({ err, task: task.name }, 'could not record an outcome');
    } finally {
      this.options.metrics.running.dec();
      if (this.active.get(task.name) === entry) this.active.delete(task.name);
    }
  }
}

function failure(err: unknown, reason: unknown, task: TaskSnapshot): Pick<RunOutcome, 'status' | 'resultSummary'> {
  if (reason instanceof ExecutionStop) {
    if (reason.kind === 'timeout') return { status: 'timeout', resultSummary: `Timed out after ${task.timeoutMs} ms` };
    if (reason.kind === 'shutdown') {
      return { status: 'stale', resultSummary: 'The service stopped while this execution was running' };
    }
    return { status: 'failed', resultSummary: 'Cancelled: the task was deleted' };
  }
  if (err instanceof RunError || err instanceof SkillError) return { status: 'failed', resultSummary: err.message };
  return { status: 'failed', resultSummary: `The run failed: ${(err as Error)?.message ?? String(err)}` };
}
