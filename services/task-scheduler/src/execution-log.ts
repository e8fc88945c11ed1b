/**
 * Executions: the running ones in a collection, the finished ones in a history log (store port
 * HistoryLog), newest first per task. The collection's unique indexes keep one run per task and
 * one run per cron tick; the history keeps memory flat as it grows (on the embedded store it is
 * one file per task, not documents in the heap). A run moves in two steps, so a crash between
 * them loses nothing: its record is marked finished in the collection (only if still running:
 * a record stale-marked meanwhile stays as it is), then appended to the history and deleted. A
 * record found finished in the collection at start, or by `history`, is one still on its way.
 */
import type { ExecutionStatus, TaskExecution } from '@notetaker/contracts';
import type { Collection, HistoryLog } from '@notetaker/store';
import { cutSummary, executionView, type ExecutionDoc, type TaskDoc } from './records.js';

/** How a task run ended: what its execution record is finished with. */
export interface RunOutcome {
  status: Exclude<ExecutionStatus, 'running'>;
  resultSummary: string;
  inputTokens: number;
  outputTokens: number;
}

export class ExecutionLog {
  constructor(
    private readonly executions: Collection<ExecutionDoc>,
    private readonly finished: HistoryLog,
    private readonly tasks: Collection<TaskDoc>,
    private readonly historyLimit: number,
  ) {}

  async init(): Promise<void> {
    await this.executions.createIndex({ name: 1 });
    // The collection holds running records (and finished ones on their way to the history), so an
    // index on status, which earlier versions made, keys nearly all of them under one value and
    // serves no query. Every status change still had to take its record out of that value's list.
    await this.executions.dropIndex({ status: 1 });
    await this.executions.createIndex({ runningKey: 1 }, { unique: true, sparse: true });
    await this.executions.createIndex({ tickKey: 1 }, { unique: true, sparse: true });
    // Records a crash left between their two steps (and every finished one of an older version),
    // oldest first: the history is in the order of its appends.
    const finished = await this.executions.find({ status: { $ne: 'running' } }, { sort: { startedAt: 1, _id: 1 } });
    for (const doc of finished) await this.archive(doc, true);
  }

  /** Throws `duplicate_key` when the task already runs or the tick was fired already. */
  async insertRunning(doc: ExecutionDoc): Promise<void> {
    await this.executions.insertOne(doc);
  }

  /** Whether a run of this task is recorded as running (for the log line of a skipped tick). */
  async isRunning(name: string): Promise<boolean> {
    return (await this.executions.findOne({ runningKey: name }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Records the outcome; a record that is no longer running (stale-marked, deleted) stays as it is.
   * The task's lastStatus goes first: whoever sees the execution finished sees the task agree.
   */
  async finish(doc: ExecutionDoc, outcome: RunOutcome, completedAt: number): Promise<void> {
    await this.tasks.updateOne({ _id: doc.name, lastRunAt: doc.startedAt }, { $set: { lastStatus: outcome.status } });
    const finished = await this.executions.findOneAndUpdate(
      { _id: doc._id, status: 'running' },
      {
        $set: {
          status: outcome.status,
          completedAt: new Date(completedAt).toISOString(),
          durationMs: completedAt - Date.parse(doc.startedAt),
          resultSummary: cutSummary(outcome.resultSummary),
          inputTokens: outcome.inputTokens,
          outputTokens: outcome.outputTokens,
        },
        $unset: { runningKey: true },
      },
    );
    if (finished) await this.archive(finished);
  }

  async remove(executionId: string): Promise<void> {
    await this.executions.deleteOne({ _id: executionId });
  }

  /**
   * Every execution still `running` whose instance is not among `liveInstances` becomes `stale`
   * (docs/api/reference.md#tasks): its process is gone, so it will never finish. Returns how many.
   */
  async markStale(liveInstances: string[], summary: string): Promise<number> {
    const orphans = await this.executions.find(
      { status: 'running', instanceId: { $nin: liveInstances } },
      { projection: { _id: 1, name: 1 } },
    );
    if (orphans.length === 0) return 0;
    await this.executions.updateMany(
      { _id: { $in: orphans.map((o) => o._id) }, status: 'running' },
      {
        $set: { status: 'stale', completedAt: new Date().toISOString(), resultSummary: summary },
        $unset: { runningKey: true },
      },
    );
    await this.tasks.updateMany(
      { _id: { $in: [...new Set(orphans.map((o) => o.name))] }, lastStatus: 'running' },
      { $set: { lastStatus: 'stale' } },
    );
    const staled = await this.executions.find({ _id: { $in: orphans.map((o) => o._id) }, status: 'stale' });
    for (const doc of staled) await this.archive(doc, true);
    return orphans.length;
  }

  /** Newest first: the running (or just finished) record, then the history. */
  async history(name: string, limit: number, offset: number): Promise<TaskExecution[]> {
    const current = (await this.executions.find({ name }, { sort: { startedAt: -1, _id: -1 } })).map((d) =>
      executionView(d, true),
    );
    const ids = new Set(current.map((e) => e.executionId));
    const past = (await this.finished.newest(name, offset + limit + current.length))
      .map((record) => JSON.parse(record) as TaskExecution)
      .filter((e) => !ids.has(e.executionId));
    return [...current, ...past].slice(offset, offset + limit);
  }

  async removeTask(name: string): Promise<void> {
    await this.executions.deleteMany({ name });
    await this.finished.drop([name]);
  }

  /**
   * Moves a finished record into the history. `recovering`: the record was found finished (at
   * start, or stale-marked, where another instance may be moving it too), so it may be in the
   * history already; it is appended only when it is not the newest there. Trimming waits until the limit is passed by a tenth
   * (none below 10), so a task at its limit rewrites its history once per batch, not on every run.
   */
  private async archive(doc: ExecutionDoc, recovering = false): Promise<void> {
    const record = executionView(doc, true);
    const [newest] = recovering ? await this.finished.newest(doc.name, 1) : [];
    if (!newest || (JSON.parse(newest) as TaskExecution).executionId !== record.executionId) {
      const count = await this.finished.append(doc.name, JSON.stringify(record));
      if (count > this.historyLimit + Math.floor(this.historyLimit / 10)) {
        await this.finished.trim(doc.name, this.historyLimit);
      }
    }
    await this.executions.deleteOne({ _id: doc._id });
  }
}
