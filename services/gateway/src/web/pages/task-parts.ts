import type { ExecutionStatus, Task, TaskExecution } from '@notetaker/contracts';
import { html, type Html } from '../html.js';
import { duration, stackedTable, time } from '../layout.js';
import type { CronPreview } from '../cron-preview.js';

const EXECUTION_LABELS: Record<ExecutionStatus, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  timeout: 'Timed out',
  stale: 'Stale (server restarted)',
};

export function executionBadge(status: ExecutionStatus | null): Html {
  if (!status) return html`<span class="muted">never run</span>`;
  return html`<span class="badge exec-${status}">${EXECUTION_LABELS[status] ?? status}</span>`;
}

export function scheduleText(task: Task): Html {
  if (!task.cronExpression) return html`<span class="muted">On demand</span>`;
  return html`<code>${task.cronExpression}</code> <small>${task.timezone}</small>${
      !task.enabled && html` <span class="badge paused">paused</span>`
    }`;
}

export function historyTable(
  executions: Array<Omit<TaskExecution, 'resultSummary'> & { resultSummary?: string | null }>,
): Html {
  if (executions.length === 0) return html`<p>This task has not run yet.</p>`;
  return stackedTable({
    columns: ['Started', 'Status', 'Trigger', 'Duration', 'Tokens in / out', 'Result'],
    rows: executions.map(
      (e) =>
        html`<tr data-execution-id="${e.executionId}">
          <td data-label="Started">${time(e.startedAt)}</td>
          <td data-label="Status">${executionBadge(e.status)}</td>
          <td data-label="Trigger">${triggerLabel(e.triggerType)}</td>
          <td data-label="Duration">${duration(e.durationMs)}</td>
          <td data-label="Tokens in / out">${e.inputTokens} / ${e.outputTokens}</td>
          <td data-label="Result" class="summary">${e.resultSummary ?? ''}</td>
        </tr>`,
    ),
  });
}

function triggerLabel(trigger: string): string {
  return trigger === 'cron'
    ? 'schedule'
    : trigger === 'ui'
      ? 'this application'
      : trigger === 'api'
        ? 'REST API'
        : trigger;
}

/** The next runs of a schedule in its zone (the htmx target of the task form). */
export function cronPreviewBlock(preview: CronPreview | null): Html {
  const inner = !preview
    ? html`<small>Leave the schedule empty for a task that runs only on demand.</small>`
    : preview.ok
      ? html`<small>Next runs (${preview.timezone}):</small>
          <ol class="next-runs">
            ${preview.runs.map((r) => html`<li><time datetime="${r.iso}" data-keep-zone>${r.local}</time></li>`)}
          </ol>`
      : html`<small class="field-error">${preview.error}</small>`;
  return html`<output
    id="cron-preview"
    class="cron-preview"
    for="f-cronExpression f-timezone"
    aria-live="polite"
    hx-get="/tasks/new/preview"
    hx-trigger="input changed delay:400ms from:#f-cronExpression, input changed delay:400ms from:#f-timezone"
    hx-include="#f-cronExpression, #f-timezone"
    hx-swap="outerHTML"
    >${inner}</output
  >`;
}
