import { expect } from 'chai';
import { ServiceError } from '@notetaker/contracts';
import { canonicalTimeZone, CronSchedule } from '../src/schedule.js';

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).status).to.equal(400);
    return (err as ServiceError).message;
  }
  throw new Error('expected a 400');
}

/** The next `count` firings after `fromIso`, in UTC. */
function firings(expression: string, zone: string, fromIso: string, count: number): string[] {
  const schedule = CronSchedule.parse(expression, zone);
  const out: string[] = [];
  let at = Date.parse(fromIso);
  for (let i = 0; i < count; i++) {
    at = schedule.nextAfter(at);
    out.push(new Date(at).toISOString());
  }
  return out;
}

describe('cron schedules', () => {
  it('accepts exactly 5 fields, names included', () => {
    for (const ok of ['* * * * *', '*/5 9-17 * * mon-fri', '0 0 1 jan *', '15,45 * * * 0', '0 12 * * 7']) {
      expect(CronSchedule.parse(ok, 'UTC').expression).to.equal(ok);
    }
  });

  it('refuses 4 or 6 fields, presets, junk, out-of-range values and dates that never come', () => {
    for (const bad of ['* * * *', '0 * * * * *', '@daily', '* * * * * * *', '* * * * ?', '$ * * * *']) {
      expect(badRequest(() => CronSchedule.parse(bad, 'UTC'))).to.contain('exactly 5 fields');
    }
    expect(badRequest(() => CronSchedule.parse('60 * * * *', 'UTC'))).to.match(/cronExpression is invalid/);
    expect(badRequest(() => CronSchedule.parse('* 25 * * *', 'UTC'))).to.match(/cronExpression is invalid/);
    expect(badRequest(() => CronSchedule.parse('* * * foo *', 'UTC'))).to.match(/cronExpression is invalid/);
    expect(badRequest(() => CronSchedule.parse('0 0 30 2 *', 'UTC'))).to.equal('cronExpression never matches a date');
  });

  it('takes a leading seconds field only when the test-only option allows it', () => {
    expect(() => CronSchedule.parse('*/2 * * * * *', 'UTC')).to.throw();
    const everyTwoSeconds = CronSchedule.parse('*/2 * * * * *', 'UTC', { allowSeconds: true });
    const next = everyTwoSeconds.nextAfter(Date.parse('2025-01-01T00:00:00.500Z'));
    expect(new Date(next).toISOString()).to.equal('2025-01-01T00:00:02.000Z');
  });

  it('gives schedules that fire at the same instants the same key', () => {
    expect(CronSchedule.parse('*/1 * * * *', 'UTC').key).to.equal(CronSchedule.parse('* * * * *', 'UTC').key);
    expect(CronSchedule.parse('0-59 * * * *', 'UTC').key).to.equal(CronSchedule.parse('* * * * *', 'UTC').key);
    expect(CronSchedule.parse('* * * * *', 'Europe/Paris').key).not.to.equal(
      CronSchedule.parse('* * * * *', 'UTC').key,
    );
  });

  it('knows IANA zones by their canonical name and refuses the rest', () => {
    expect(canonicalTimeZone('europe/paris')).to.equal('Europe/Paris');
    expect(canonicalTimeZone('UTC')).to.equal('UTC');
    expect(canonicalTimeZone('Etc/GMT+5')).to.equal('Etc/GMT+5');
    for (const bad of ['Mars/Olympus', '+01:00', 'Z', '', '../etc/passwd']) {
      expect(badRequest(() => canonicalTimeZone(bad))).to.contain('IANA');
    }
  });

  it('evaluates the expression in the task time zone', () => {
    expect(firings('0 9 * * *', 'Asia/Tokyo', '2025-06-01T12:00:00Z', 1)).to.deep.equal(['2025-06-02T00:00:00.000Z']);
    expect(firings('0 9 * * *', 'UTC', '2025-06-01T12:00:00Z', 1)).to.deep.equal(['2025-06-02T09:00:00.000Z']);
  });

  describe('across daylight-saving changes (Europe/Paris, America/New_York)', () => {
    it('keeps a daily time on local time when the offset changes', () => {
      expect(firings('0 9 * * *', 'America/New_York', '2025-03-08T12:00:00Z', 2)).to.deep.equal([
        '2025-03-08T14:00:00.000Z', // 09:00 EST
        '2025-03-09T13:00:00.000Z', // 09:00 EDT
      ]);
    });

    it('spring forward: a time inside the skipped hour runs once, when the clock jumps', () => {
      expect(firings('30 2 * * *', 'Europe/Paris', '2025-03-29T12:00:00Z', 2)).to.deep.equal([
        '2025-03-30T01:00:00.000Z', // 03:00 CEST, the first instant after the gap
        '2025-03-31T00:30:00.000Z', // 02:30 CEST the next day
      ]);
      expect(firings('0 * * * *', 'Europe/Paris', '2025-03-29T23:30:00Z', 3)).to.deep.equal([
        '2025-03-30T00:00:00.000Z', // 01:00 CET
        '2025-03-30T01:00:00.000Z', // 03:00 CEST: the 02:00 run is not lost, and not doubled
        '2025-03-30T02:00:00.000Z', // 04:00 CEST
      ]);
    });

    it('fall back: a time inside the repeated hour runs once, on its first pass', () => {
      expect(firings('30 2 * * *', 'Europe/Paris', '2025-10-25T12:00:00Z', 2)).to.deep.equal([
        '2025-10-26T00:30:00.000Z', // 02:30 CEST; 02:30 CET an hour later does not run
        '2025-10-27T01:30:00.000Z', // 02:30 CET the next day
      ]);
    });

    it('fall back: schedules finer than an hour run through both passes, in real time', () => {
      expect(firings('*/30 * * * *', 'Europe/Paris', '2025-10-25T23:45:00Z', 5)).to.deep.equal([
        '2025-10-26T00:00:00.000Z', // 02:00 CEST
        '2025-10-26T00:30:00.000Z', // 02:30 CEST
        '2025-10-26T01:00:00.000Z', // 02:00 CET
        '2025-10-26T01:30:00.000Z', // 02:30 CET
        '2025-10-26T02:00:00.000Z', // 03:00 CET
      ]);
    });
  });
});
