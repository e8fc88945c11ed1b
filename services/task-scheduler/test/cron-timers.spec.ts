/**
 * CronTimers directly: one hand-out per instant, whatever order the timers fire in.
 */
import { expect } from 'chai';
import { CronTimers, type Tick } from '../src/cron-timers.js';
import { CronSchedule } from '../src/schedule.js';
import { eventually, sleep } from '../../../test/support/wait.js';

const everySecond = (zone: string) => CronSchedule.parse('* * * * * *', zone, { allowSeconds: true });

/** The group's timer, moved `ms` later: what the event loop's cached clock does to a real one. */
function delayTimerOf(timers: CronTimers, name: string, ms: number): void {
  const inner = timers as unknown as {
    memberOf: Map<string, { nextAt: number; timer: NodeJS.Timeout | null }>;
    wake(group: unknown): void;
  };
  const group = inner.memberOf.get(name)!;
  clearTimeout(group.timer!);
  group.timer = setTimeout(() => inner.wake(group), group.nextAt - Date.now() + ms);
}

describe('cron timers', () => {
  it('hands out every group due at one instant in one call, even when their timers fire apart', async () => {
    const calls: Tick[][] = [];
    const timers = new CronTimers(
      (ticks) => calls.push(ticks),
      (err) => {
        throw err;
      },
    );
    try {
      timers.set('a', everySecond('UTC'));
      timers.set('b', everySecond('Europe/Paris'));
      const instant = timers.nextRunAt('a')!;
      expect(timers.nextRunAt('b')).to.equal(instant, 'both groups fire at the same instant');
      delayTimerOf(timers, 'b', 80);
      await eventually(() => calls.length > 0, 'the first hand-out');
      // Past b's timer, 80 ms late: a second hand-out for the instant would have come by now.
      await sleep(150);
      const atInstant = calls.filter((ticks) => ticks[0].scheduledAt === instant);
      expect(atInstant).to.have.length(1, 'one hand-out for the instant');
      expect(atInstant[0].flatMap((t) => t.names).sort()).to.deep.equal(['a', 'b']);
      expect(timers.nextRunAt('b')).to.be.greaterThan(instant, 'the group taken early is re-armed');
    } finally {
      timers.stop();
    }
  });
});
