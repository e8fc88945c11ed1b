/**
 * What the scheduler stores: tasks (one document per task, `_id` = name) and executions, and how
 * they become the wire shapes of the tasks API (shared/contracts' `task` and `taskExecution`).
 */
import type { ExecutionStatus, Task, TaskExecution } from '@notetaker/contracts';
import type { Document } from '@notetaker/store';

export interface TaskDoc extends Document {
  _id: string;
  name: string;
  skillName: string;
  /** Absent for on-demand tasks. */
  cronExpression?: string;
  timezone: string;
  enabled: boolean;
  timeoutMs: number;
  lastRunAt: string | null;
  lastStatus: ExecutionStatus | null;
  createdAt: string;
  updatedAt: string;
}

export interface ExecutionDoc extends Document {
  _id: string;
  executionId: string;
  executionType: 'scheduled' | 'manual';
  name: string;
  status: ExecutionStatus;
  triggerType: 'cron' | 'api' | 'ui';
  startedAt: string;
  completedAt: string | null;
  durationMs: number | null;
  resultSummary: string | null;
  inputTokens: number;
  outputTokens: number;
  /** The instance running it: its heartbeat tells whether the execution is an orphan. */
  instanceId: string;
  /** Set (to the task name) only while running; a unique index allows one run per task at a time. */
  runningKey?: string;
  /** `<name>@<scheduled ISO>` for cron runs; a unique index makes each tick fire at most once. */
  tickKey?: string;
}

/** What a run needs from its task, captured when it starts. */
export interface TaskSnapshot {
  name: string;
  skillName: string;
  timeoutMs: number;
}

export const RESULT_SUMMARY_MAX = 2000;

export function cutSummary(text: string): string {
  return text.length <= RESULT_SUMMARY_MAX ? text : `${text.slice(0, RESULT_SUMMARY_MAX - 1)}…`;
}

export function taskView(doc: TaskDoc, nextRunAt: number | null): Task {
  const scheduled = typeof doc.cronExpression === 'string';
  return {
    name: doc.name,
    skillName: doc.skillName,
    ...(scheduled && { cronExpression: doc.cronExpression }),
    timezone: doc.timezone,
    enabled: doc.enabled,
    timeoutMs: doc.timeoutMs,
    lastRunAt: doc.lastRunAt,
    lastStatus: doc.lastStatus,
    nextRunAt: scheduled && doc.enabled && nextRunAt !== null ? new Date(nextRunAt).toISOString() : null,
    isScheduled: scheduled,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function executionView(doc: ExecutionDoc, withSummary: boolean): TaskExecution {
  return {
    executionId: doc.executionId,
    executionType: doc.executionType,
    name: doc.name,
    status: doc.status,
    triggerType: doc.triggerType,
    startedAt: doc.startedAt,
    completedAt: doc.completedAt,
    durationMs: doc.durationMs,
    ...(withSummary && { resultSummary: doc.resultSummary }),
    inputTokens: doc.inputTokens,
    outputTokens: doc.outputTokens,
  };
}

export function snapshotOf(doc: TaskDoc): TaskSnapshot {
  return { name: doc.name, skillName: doc.skillName, timeoutMs: doc.timeoutMs };
}
