/**
 * Starts and finishes executions. One run per task at a time, across instances: the running
 * record carries a unique `runningKey`, so a second start fails in the store, not by luck. A run
 * gets an AbortController that fires on timeout (status `timeout`), on deletion of its task
 * (the record goes with the task) and on shutdown (status `stale`); the signal reaches the model
 * request and every tool call. At most `maxConcurrent` skills run at once; time spent waiting for
 * a slot counts toward the timeout, since the execution is running from the user's point of view.
 */
import { randomBytes } from 'node:crypto';
import { errors, ServiceError } from '@notetaker/contracts';
import type { Logger } from '@notetaker/kit';
import type { Collection } from '@notetaker/store';
import type { ExecutionLog, Outcome } from './execution-log.js';
import type { SchedulerMetrics } from './metrics.js';
import type { ExecutionDoc, TaskDoc, TaskSnapshot } from './records.js';
import { RunError, type TokenUsage } from './runner/agent.js';
import { raceAbort } from './abort.js';
import { SkillError } from './skills.js';
import { Slots } from './slots.js';

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
  /**
   * Called once the record is stored; the run waits for the promise before it works (its timeout
   * is already running). Cron ticks pass StartBacklog.drained (see start-backlog.ts).
   */
  gate?: () => Promise<void>;
}

export type StartResult =
  { started: true; execution: ExecutionDoc } | { started: false; reason: 'running' | 'fired_elsewhere' };

/** The tasks due at one cron tick. */
export interface DueTick {
  tasks: TaskSnapshot[];
  scheduledAt: number;
}

interface Active {
  task: TaskSnapshot;
  doc: ExecutionDoc;
  startedAt: number;
  /** Created once the record is stored; a cancel before that is remembered here. */
  controller?: AbortController;
  cancelled?: boolean;
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
}

// Execution ids: time, a random part per process, a counter. Unique without a random draw per id.
const ID_PREFIX = randomBytes(4).toString('hex');
let idCounter = 0;
export function newExecutionId(now = Date.now()): string {
  return `exec_${now}_${ID_PREFIX}${(++idCounter).toString(36)}`;
}

const ALREADY_RUNNING: Promise<StartResult> = Promise.resolve({ started: false, reason: 'running' });

export class Executor {
  private readonly active = new Map<string, Active>();
  private readonly slots: Slots;
  private stopping = false;
  // Thousands of executions start in the same millisecond: one ISO string for all of them.
  private lastIso = { ms: 0, iso: '' };

  constructor(private readonly options: ExecutorOptions) {
    this.slots = new Slots(options.maxConcurrent);
  }

  /** Records the execution as running, then runs it in the background. */
  start(request: StartRequest): Promise<StartResult> {
    if (this.stopping) return Promise.reject(errors.unavailable('The task scheduler is stopping'));
    const tick = request.scheduledAt === undefined ? undefined : new Date(request.scheduledAt).toISOString();
    const entry = this.prepare(request.task, request.executionType, request.triggerType, tick);
    if (!entry) return ALREADY_RUNNING;
    return this.record(entry, request.executionType === 'manual', request.scheduledAt, request.gate);
  }

  /**
   * Starts the executions of cron ticks: first every execution is created (startedAt, id, its
   * place in `active`) in one tight loop over all the ticks, then the record writes are queued.
   * The 10,000th task of a minute boundary starts a few milliseconds after the first, instead of
   * after 9,999 write calls and the garbage collections they bring.
   */
  startTicks(ticks: DueTick[], gate: () => Promise<void>): Array<Promise<StartResult>> {
    const total = ticks.reduce((n, t) => n + t.tasks.length, 0);
    if (this.stopping) {
      return Array.from({ length: total }, () => Promise.reject(errors.unavailable('The task scheduler is stopping')));
    }
    const entries: Array<Active | null> = new Array(total);
    let i = 0;
    for (const { tasks, scheduledAt } of ticks) {
      const tick = new Date(scheduledAt).toISOString();
      for (const task of tasks) entries[i++] = this.prepare(task, 'scheduled', 'cron', tick);
    }
    const results: Array<Promise<StartResult>> = new Array(total);
    i = 0;
    for (const { tasks, scheduledAt } of ticks) {
      for (let j = 0; j < tasks.length; j++, i++) {
        const entry = entries[i];
        results[i] = entry ? this.record(entry, false, scheduledAt, gate) : ALREADY_RUNNING;
      }
    }
    return results;
  }

  private iso(ms: number): string {
    if (this.lastIso.ms !== ms) this.lastIso = { ms, iso: new Date(ms).toISOString() };
    return this.lastIso.iso;
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
      startedAt: this.iso(startedAt),
      completedAt: null,
      durationMs: null,
      resultSummary: null,
      inputTokens: 0,
      outputTokens: 0,
      instanceId: this.options.instanceId,
      runningKey: task.name,
    };
    if (tick !== undefined) doc.tickKey = `${task.name}@${tick}`;
    const entry: Active = { task, doc, startedAt };
    this.active.set(task.name, entry);
    return entry;
  }

  private async record(
    entry: Active,
    manual: boolean,
    scheduledAt: number | undefined,
    gate: (() => Promise<void>) | undefined,
  ): Promise<StartResult> {
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
    const controller = new AbortController();
    entry.controller = controller;
    if (entry.cancelled) controller.abort(new ExecutionStop('cancelled'));
    this.options.metrics.running.inc();
    this.options.logger.info(
      { task: task.name, executionId: doc.executionId, trigger: doc.triggerType },
      'execution started',
    );
    entry.done = this.run(doc, task, controller, startedAt, gate)
      .catch((err: unknown) => this.options.logger.error({ err, task: task.name }, 'could not record an outcome'))
      .finally(() => {
        this.options.metrics.running.dec();
        if (this.active.get(task.name) === entry) this.active.delete(task.name);
      });
    return { started: true, execution: doc };
  }

  /** Aborts this task's run in this process, if any; its record is removed with the task. */
  cancel(name: string): void {
    const entry = this.active.get(name);
    if (!entry) return;
    entry.cancelled = true;
    entry.controller?.abort(new ExecutionStop('cancelled'));
  }

  isRunningHere(name: string): boolean {
    return this.active.has(name);
  }

  /** Aborts every run (they are recorded `stale`) and waits for their records. */
  async stop(): Promise<void> {
    this.stopping = true;
    const entries = [...this.active.values()];
    for (const entry of entries) entry.controller?.abort(new ExecutionStop('shutdown'));
    await Promise.allSettled(entries.map((e) => e.done));
  }

  private async run(
    doc: ExecutionDoc,
    task: TaskSnapshot,
    controller: AbortController,
    startedAt: number,
    gate: (() => Promise<void>) | undefined,
  ): Promise<void> {
    const { signal } = controller;
    // Timers may fire a millisecond before the wall clock says the time is up: wait out the rest,
    // so a run stopped for its timeout never records a duration below it.
    const deadline = startedAt + task.timeoutMs;
    let timer: NodeJS.Timeout;
    const expire = () => {
      if (Date.now() < deadline) timer = setTimeout(expire, deadline - Date.now());
      else controller.abort(new ExecutionStop('timeout'));
    };
    timer = setTimeout(expire, Math.max(0, deadline - Date.now()));
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let lastRun: Promise<unknown> = Promise.resolve();
    let outcome: Outcome;
    try {
      if (gate) await raceAbort(gate(), signal);
      lastRun = this.options.tasks
        .updateOne({ _id: task.name }, { $set: { lastRunAt: doc.startedAt, lastStatus: 'running' } })
        .catch((err: unknown) => this.options.logger.warn({ err, task: task.name }, 'could not record lastRunAt'));
      await this.slots.acquire(signal);
      try {
        const answer = await this.options.runner.run(task, signal, usage);
        outcome = { status: 'completed', resultSummary: answer, ...usage };
      } finally {
        this.slots.release();
      }
    } catch (err) {
      outcome = { ...failure(err, signal, task), ...usage };
    } finally {
      clearTimeout(timer);
    }
    await lastRun;
    const stop: unknown = signal.reason;
    if (signal.aborted && stop instanceof ExecutionStop && stop.kind === 'cancelled') {
      await this.options.log.remove(doc._id);
      return;
    }
    await this.options.log.finish(doc, outcome, Date.now());
    this.options.metrics.executions.inc({ status: outcome.status });
    this.options.logger.info(
      { task: task.name, executionId: doc.executionId, status: outcome.status, durationMs: Date.now() - startedAt },
      'execution finished',
    );
  }
}

function failure(err: unknown, signal: AbortSignal, task: TaskSnapshot): Pick<Outcome, 'status' | 'resultSummary'> {
  const stop: unknown = signal.aborted ? signal.reason : null;
  if (stop instanceof ExecutionStop) {
    if (stop.kind === 'timeout') return { status: 'timeout', resultSummary: `Timed out after ${task.timeoutMs} ms` };
    if (stop.kind === 'shutdown') {
      return { status: 'stale', resultSummary: 'The service stopped while this execution was running' };
    }
    return { status: 'failed', resultSummary: 'Cancelled: the task was deleted' };
  }
  if (err instanceof RunError || err instanceof SkillError) return { status: 'failed', resultSummary: err.message };
  return { status: 'failed', resultSummary: `The run failed: ${(err as Error)?.message ?? String(err)}` };
}
