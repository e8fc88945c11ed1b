/** The executions collection: running records, outcomes, stale marking, history and pruning. */
import type { ExecutionStatus } from '@notetaker/contracts';
import type { Collection } from '@notetaker/store';
import { cutSummary, type ExecutionDoc, type TaskDoc } from './records.js';

export interface Outcome {
  status: Exclude<ExecutionStatus, 'running'>;
  resultSummary: string;
  inputTokens: number;
  outputTokens: number;
}

export class ExecutionLog {
  constructor(
    private readonly executions: Collection<ExecutionDoc>,
    private readonly tasks: Collection<TaskDoc>,
    private readonly historyLimit: number,
  ) {}

  async init(): Promise<void> {
    await this.executions.createIndex({ name: 1 });
    await this.executions.createIndex({ status: 1 });
    await this.executions.createIndex({ runningKey: 1 }, { unique: true, sparse: true });
    await this.executions.createIndex({ tickKey: 1 }, { unique: true, sparse: true });
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
  async finish(doc: ExecutionDoc, outcome: Outcome, completedAt: number): Promise<void> {
    await this.tasks.updateOne({ _id: doc.name, lastRunAt: doc.startedAt }, { $set: { lastStatus: outcome.status } });
    const result = await this.executions.updateOne(
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
    if (result.matchedCount > 0) await this.prune(doc.name);
  }

  async remove(executionId: string): Promise<void> {
    await this.executions.deleteOne({ _id: executionId });
  }

  /**
   * Every execution still `running` whose instance is not among `liveInstances` becomes `stale`
   * (SPEC 3.2): its process is gone, so it will never finish. Returns how many.
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
    return orphans.length;
  }

  /** Newest first. */
  async history(name: string, limit: number, offset: number): Promise<ExecutionDoc[]> {
    return this.executions.find({ name }, { sort: { startedAt: -1, _id: -1 }, skip: offset, limit });
  }

  async removeTask(name: string): Promise<void> {
    await this.executions.deleteMany({ name });
  }

  /**
   * Keeps the newest `historyLimit` executions of a task. Trimming waits until the limit is passed
   * by a tenth (none below 10), so a task at its limit pays for the sorted scan once per batch,
   * not on every run.
   */
  private async prune(name: string): Promise<void> {
    const count = await this.executions.countDocuments({ name });
    if (count <= this.historyLimit + Math.floor(this.historyLimit / 10)) return;
    const [boundary] = await this.executions.find(
      { name },
      { sort: { startedAt: -1, _id: -1 }, skip: this.historyLimit - 1, limit: 1, projection: { startedAt: 1 } },
    );
    if (!boundary) return;
    await this.executions.deleteMany({
      name,
      startedAt: { $lt: boundary.startedAt as string },
      status: { $ne: 'running' },
    });
  }
}
