/**
 * The task form's preview of a schedule: the next runs of a cron expression in the task's time
 * zone, computed with the same `cron` package the task-scheduler uses, so the preview and the
 * timer agree (DST included). The scheduler stays the judge of what it accepts.
 */
import { CronTime } from 'cron';
import { CRON_FIELDS_MESSAGE, isFiveFieldCron, isIanaTimeZone } from '@notetaker/contracts';

export type CronPreview =
  | { ok: true; timezone: string; runs: Array<{ iso: string; local: string }> }
  | { ok: false; field: 'cronExpression' | 'timezone'; error: string };

export function previewCron(expression: string, timezoneInput: string, count = 5, from = Date.now()): CronPreview {
  const zoneName = timezoneInput.trim() || 'UTC';
  if (!isIanaTimeZone(zoneName)) {
    return { ok: false, field: 'timezone', error: 'Use an IANA time zone name such as Europe/Paris or UTC.' };
  }
  const timezone = new Intl.DateTimeFormat('en-US', { timeZone: zoneName }).resolvedOptions().timeZone;
  const trimmed = expression.trim();
  if (!isFiveFieldCron(trimmed)) return { ok: false, field: 'cronExpression', error: CRON_FIELDS_MESSAGE };
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  try {
    const time = new CronTime(trimmed.split(/\s+/).join(' '), timezone);
    const runs: Array<{ iso: string; local: string }> = [];
    let cursor = new Date(from);
    for (let i = 0; i < count; i++) {
      const next = time.getNextDateFrom(cursor, timezone).toJSDate();
      runs.push({ iso: next.toISOString(), local: format.format(next) });
      cursor = next;
    }
    return { ok: true, timezone, runs };
  } catch (err) {
    const reason = (err as Error).message || 'it never matches a date';
    return { ok: false, field: 'cronExpression', error: `This cron expression is not valid: ${reason}` };
  }
}
