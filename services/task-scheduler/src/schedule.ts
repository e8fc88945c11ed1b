/**
 * Cron expressions and time zones, evaluated with the `cron` package (which uses luxon's IANA
 * zones). Every outside expression is exactly 5 fields (docs/api/reference.md#tasks); a 6th,
 * leading seconds field exists only for tests that cannot wait a minute, behind an option REST never reaches.
 *
 * DST, as the `cron` package computes it and schedule.spec.ts pins down:
 * - a wall-clock time inside a spring-forward gap runs once, at the first instant after the gap
 *   (30 2 * * * in Europe/Paris runs at 03:00 CEST on the last Sunday of March);
 * - a fixed time inside a fall-back overlap runs once, at its first occurrence (summer time);
 * - schedules finer than the overlap (every 15 minutes, hourly) run in both passes of the hour:
 *   they follow real elapsed time there, so nothing is skipped and nothing runs twice at once.
 */
import { CronTime } from 'cron';
import { CRON_FIELDS_MESSAGE, errors, isIanaTimeZone } from '@notetaker/contracts';

const CRON_FIELD = /^[A-Za-z0-9*,/-]{1,64}$/;

export interface CronOptions {
  /** Tests only: allow a leading seconds field. */
  allowSeconds?: boolean;
}

// Building an Intl.DateTimeFormat costs ~0.1 ms; creating thousands of tasks asks for a few zones.
const canonicalZones = new Map<string, string>();

/** The zone's canonical IANA name (`europe/paris` -> `Europe/Paris`), or a 400. */
export function canonicalTimeZone(name: string): string {
  const known = canonicalZones.get(name);
  if (known) return known;
  if (!isIanaTimeZone(name)) {
    throw errors.badRequest('timezone must be an IANA time zone name such as Europe/Paris or UTC', 'timezone');
  }
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  if (canonicalZones.size < 10_000) canonicalZones.set(name, canonical);
  return canonical;
}

export class CronSchedule {
  private constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly time: CronTime,
  ) {}

  /** Parses and checks an expression in a (canonical) zone; every problem is a 400. */
  static parse(expression: string, timezone: string, options: CronOptions = {}): CronSchedule {
    const fields = expression.trim().split(/\s+/);
    const allowed = options.allowSeconds ? [5, 6] : [5];
    if (!allowed.includes(fields.length) || !fields.every((f) => CRON_FIELD.test(f))) {
      throw errors.badRequest(CRON_FIELDS_MESSAGE, 'cronExpression');
    }
    let time: CronTime;
    try {
      time = new CronTime(fields.join(' '), timezone);
    } catch (err) {
      throw errors.badRequest(`cronExpression is invalid: ${(err as Error).message}`, 'cronExpression');
    }
    const schedule = new CronSchedule(fields.join(' '), timezone, time);
    try {
      schedule.nextAfter(Date.now());
    } catch {
      // e.g. `0 0 30 2 *`: the package searches 8 years ahead and gives up.
      throw errors.badRequest('cronExpression never matches a date', 'cronExpression');
    }
    return schedule;
  }

  /**
   * Schedules that fire at the same instants share one key (`*\/1` and `*`, `0-59` and `*`), so
   * 10,000 tasks on a handful of schedules need a handful of timers and next-date computations.
   */
  get key(): string {
    return `${this.time.toString()}|${this.timezone}`;
  }

  /** The first firing strictly after `instant` (epoch ms). */
  nextAfter(instant: number): number {
    return this.time.getNextDateFrom(new Date(instant), this.timezone).toMillis();
  }
}

/**
 * Parsed schedules by (expression, zone): parsing costs a next-date computation, and 10,000 tasks
 * usually share a handful of schedules (start-up, list views, creates).
 */
export class ScheduleCache {
  private readonly cache = new Map<string, CronSchedule>();

  constructor(readonly options: CronOptions = {}) {}

  /** The schedule, or a 400 naming what is wrong. */
  get(expression: string, timezone: string): CronSchedule {
    const id = `${expression}|${timezone}`;
    let schedule = this.cache.get(id);
    if (!schedule) {
      schedule = CronSchedule.parse(expression, timezone, this.options);
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(id, schedule);
    }
    return schedule;
  }
}

/**
 * nextRunAt for task views: one next-date computation per distinct schedule until that date
 * passes (a list of 10,000 tasks on one schedule computes it once).
 */
export class NextRunCalendar {
  private readonly cache = new Map<string, { from: number; at: number }>();

  constructor(private readonly schedules: ScheduleCache) {}

  next(expression: string, timezone: string, now = Date.now()): number | null {
    const id = `${expression}|${timezone}`;
    const hit = this.cache.get(id);
    if (hit && hit.from <= now && now < hit.at) return hit.at;
    let at: number;
    try {
      at = this.schedules.get(expression, timezone).nextAfter(now);
    } catch {
      return null;
    }
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(id, { from: now, at });
    return at;
  }
}
