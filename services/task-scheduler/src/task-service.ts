/**
 * The tasks API as operations on the store: what each svc.tasks.* verb does. Every change re-arms this
 * instance's timer at once and is announced on broadcast.tasks.changed so the other instances (and the
 * lease holder among them) follow.
 */
import {
  DEFAULT_TASK_TIMEOUT_MS,
  errors,
  ServiceError,
  TASK_NAME,
  TASK_NOT_FOUND,
  type CreateTaskRequest,
  type Task,
  type TaskExecution,
  type UpdateTaskRequest,
} from '@notetaker/contracts';
import type { Collection } from '@notetaker/store';
import type { ExecutionLog } from './execution-log.js';
import type { Executor } from './executor.js';
import { snapshotOf, taskView, type TaskDoc } from './records.js';
import { canonicalTimeZone, NextRunCalendar, type ScheduleCache } from './schedule.js';
import type { SkillCache } from './skills.js';

export interface TaskServiceOptions {
  tasks: Collection<TaskDoc>;
  log: ExecutionLog;
  executor: Executor;
  skills: SkillCache;
  schedules: ScheduleCache;
  /** Re-arms (or disarms) this instance's timer for the task as stored now (null: deleted). */
  follow(name: string, doc: TaskDoc | null): void;
  /** Tells the other instances. */
  announce(name: string): void;
}

const notFound = () => errors.notFound(TASK_NOT_FOUND);
const RECENT_EXECUTIONS = 10;

export class TaskService {
  private readonly calendar: NextRunCalendar;

  constructor(private readonly o: TaskServiceOptions) {
    this.calendar = new NextRunCalendar(o.schedules);
  }

  view(doc: TaskDoc): Task {
    const next = doc.cronExpression && doc.enabled ? this.calendar.next(doc.cronExpression, doc.timezone) : null;
    return taskView(doc, next);
  }

  async create(request: CreateTaskRequest): Promise<{ task: Task }> {
    const timezone = canonicalTimeZone(request.timezone ?? 'UTC');
    const cronExpression =
      request.cronExpression === undefined
        ? undefined
        : this.o.schedules.get(request.cronExpression, timezone).expression;
    await this.requireSkill(request.skillName);
    const now = new Date().toISOString();
    const doc: TaskDoc = {
      _id: request.name,
      name: request.name,
      skillName: request.skillName,
      ...(cronExpression !== undefined && { cronExpression }),
      timezone,
      enabled: request.enabled ?? true,
      timeoutMs: request.timeout ?? DEFAULT_TASK_TIMEOUT_MS,
      lastRunAt: null,
      lastStatus: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.o.tasks.insertOne(doc);
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'duplicate_key') {
        throw errors.conflict(`Task already exists: ${request.name}`);
      }
      throw err;
    }
    this.changed(doc);
    return { task: this.view(doc) };
  }

  /** One page of tasks by name, after the name `after`; `next` is where the following page starts. */
  async list(scheduled: boolean | undefined, after: string | undefined, limit: number) {
    const filter = {
      ...(scheduled !== undefined && { cronExpression: { $exists: scheduled } }),
      ...(after !== undefined && { name: { $gt: after } }),
    };
    const docs = await this.o.tasks.find(filter, { sort: { name: 1 }, limit: limit + 1 });
    const page = docs.slice(0, limit);
    return {
      tasks: page.map((doc) => this.view(doc)),
      next: docs.length > limit ? page[page.length - 1].name : null,
    };
  }

  async get(name: string): Promise<{ task: Task; recentExecutions: TaskExecution[] }> {
    const doc = await this.require(name);
    const recent = await this.o.log.history(name, RECENT_EXECUTIONS, 0);
    return { task: this.view(doc), recentExecutions: recent.map(({ resultSummary: _, ...e }) => e) };
  }

  async update(name: string, changes: UpdateTaskRequest): Promise<{ task: Task }> {
    if (!TASK_NAME.test(name)) throw notFound();
    if (Object.keys(changes).length === 0) {
      throw errors.badRequest('Give at least one of skillName, cronExpression, timezone, enabled, timeout');
    }
    const doc = await this.require(name);
    const timezone = changes.timezone === undefined ? doc.timezone : canonicalTimeZone(changes.timezone);
    const cron = changes.cronExpression === undefined ? doc.cronExpression : changes.cronExpression;
    const cronExpression =
      cron === null || cron === undefined ? undefined : this.o.schedules.get(cron, timezone).expression;
    if (changes.skillName !== undefined && changes.skillName !== doc.skillName) {
      await this.requireSkill(changes.skillName);
    }
    const set: Partial<TaskDoc> = {
      skillName: changes.skillName ?? doc.skillName,
      timezone,
      enabled: changes.enabled ?? doc.enabled,
      timeoutMs: changes.timeout ?? doc.timeoutMs,
      updatedAt: new Date().toISOString(),
      ...(cronExpression !== undefined && { cronExpression }),
    };
    const updated = await this.o.tasks.findOneAndUpdate(
      { _id: name },
      cronExpression === undefined ? { $set: set, $unset: { cronExpression: true } } : { $set: set },
    );
    if (!updated) throw notFound();
    this.changed(updated);
    return { task: this.view(updated) };
  }

  async remove(name: string): Promise<{ success: true; message: string }> {
    const doc = await this.require(name);
    const wasRunning = this.o.executor.isRunningHere(name);
    await this.o.tasks.deleteOne({ _id: doc._id });
    this.o.executor.cancel(name);
    await this.o.log.removeTask(name);
    this.o.follow(name, null);
    this.o.announce(name);
    const also = wasRunning ? ' and its running execution cancelled' : '';
    return { success: true, message: `Task ${name} deleted${also}` };
  }

  async setEnabled(name: string, enabled: boolean): Promise<{ task: Task }> {
    const doc = await this.require(name);
    if (!doc.cronExpression) {
      throw errors.conflict(`Task ${name} is on-demand: it has no schedule to ${enabled ? 'enable' : 'disable'}`);
    }
    if (doc.enabled === enabled) return { task: this.view(doc) };
    const updated = await this.o.tasks.findOneAndUpdate(
      { _id: name },
      { $set: { enabled, updatedAt: new Date().toISOString() } },
    );
    if (!updated) throw notFound();
    this.changed(updated);
    return { task: this.view(updated) };
  }

  /** Starts an execution now, scheduled or not, enabled or not. */
  async run(name: string, triggerType: 'api' | 'ui'): Promise<{ success: true; message: string; taskName: string }> {
    const doc = await this.require(name);
    const result = await this.o.executor.start({ task: snapshotOf(doc), executionType: 'manual', triggerType });
    if (!result.started) throw errors.conflict(`Task ${name} is already running`);
    return {
      success: true,
      message: `Task ${name} started (execution ${result.execution.executionId})`,
      taskName: name,
    };
  }

  async history(name: string, limit: number, offset: number): Promise<{ executions: TaskExecution[] }> {
    await this.require(name);
    return { executions: await this.o.log.history(name, limit, offset) };
  }

  /** The task of that name; a name no task could have is simply not found, like any other unknown task. */
  private async require(name: string): Promise<TaskDoc> {
    if (!TASK_NAME.test(name)) throw notFound();
    const doc = await this.o.tasks.findOne({ _id: name });
    if (!doc) throw notFound();
    return doc;
  }

  private async requireSkill(skillName: string): Promise<void> {
    if (!(await this.o.skills.exists(skillName))) throw errors.notFound(`Skill not found: ${skillName}`);
  }

  private changed(doc: TaskDoc): void {
    this.o.follow(doc.name, doc);
    this.o.announce(doc.name);
  }
}
