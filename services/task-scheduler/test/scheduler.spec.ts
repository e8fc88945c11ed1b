/**
 * Cron firing with real short waits: the service accepts a leading seconds field here through
 * its test-only option (REST allows exactly 5 fields), so a schedule fires every second.
 */
import { expect } from 'chai';
import type { Task, TaskExecution } from '@notetaker/contracts';
import { silentLogger } from '@notetaker/observability';
import { startFakeLlm, type FakeLlm } from '../../../test/support/fake-llm.js';
import { SchedulerLease } from '../src/lease.js';
import { eventually, harnessForSuite, sleep, startHarness, type Harness } from './harness.js';

describe('cron scheduling', function () {
  this.timeout(30_000);
  let llm: FakeLlm;
  let h: Harness;

  const history = async (name: string): Promise<TaskExecution[]> =>
    (await h.request<{ executions: TaskExecution[] }>('history', { name, limit: 100, offset: 0 })).executions;
  const getTask = async (name: string): Promise<Task> => (await h.request<{ task: Task }>('get', { name })).task;

  before(async () => {
    llm = await startFakeLlm();
  });
  after(() => llm.close());
  beforeEach(async () => {
    llm.script([]);
    llm.respond(() => ({ answer: 'ok', usage: { prompt: 3, completion: 1 } }));
    h = await startHarness({ ...llm.env(), TASKS_LEASE_TTL_MS: '2000' });
  });
  afterEach(() => h.stop());

  it('fires on schedule as scheduled/cron executions, close to the tick', async () => {
    const { task } = await h.request<{ task: Task }>('create', {
      name: 'every-second',
      skillName: 'daily-meeting-digest',
      cronExpression: '* * * * * *',
    });
    expect(task.isScheduled).to.equal(true);
    expect(Date.parse(task.nextRunAt!) % 1000).to.equal(0);
    expect(Date.parse(task.nextRunAt!) - Date.now()).to.be.within(0, 1000);
    const runs = await eventually(async () => {
      const list = await history('every-second');
      return list.filter((e) => e.status === 'completed').length >= 2 && list;
    });
    for (const run of runs.filter((e) => e.status === 'completed')) {
      expect(run).to.include({ executionType: 'scheduled', triggerType: 'cron', inputTokens: 3, outputTokens: 1 });
      // startedAt is a tick plus its lateness.
      expect(Date.parse(run.startedAt) % 1000).to.be.below(250);
    }
    expect(await h.first.counter('tasks_ticks_total', { outcome: 'started' })).to.be.at.least(2);
    const later = await getTask('every-second');
    expect(later.lastRunAt).to.be.a('string');
    expect(Date.parse(later.nextRunAt!)).to.be.above(Date.now() - 50);
  });

  it('skips a tick while the previous execution of the task still runs', async () => {
    llm.respond(() => ({ answer: 'slow', delayMs: 2300 }));
    await h.request('create', {
      name: 'overlapping',
      skillName: 'daily-meeting-digest',
      cronExpression: '* * * * * *',
    });
    await eventually(async () => (await history('overlapping')).some((e) => e.status === 'completed'), 6000);
    const list = await history('overlapping');
    // One run took ~2.3 s; the ticks during it were skipped, not queued.
    expect(list.filter((e) => e.status === 'completed')).to.have.length(1);
    expect(await h.first.counter('tasks_ticks_total', { outcome: 'skipped_running' })).to.be.at.least(1);
  });

  it('disable pauses the timer (nextRunAt null), enable resumes it; manual runs work either way', async () => {
    await h.request('create', {
      name: 'pausable',
      skillName: 'daily-meeting-digest',
      cronExpression: '* * * * * *',
      enabled: false,
    });
    expect((await getTask('pausable')).nextRunAt).to.equal(null);
    await sleep(1300);
    expect(await history('pausable')).to.have.length(0);
    await h.request('run', { name: 'pausable' });
    await eventually(async () => (await history('pausable')).length === 1);
    const { task } = await h.request<{ task: Task }>('enable', { name: 'pausable' });
    expect(task.enabled).to.equal(true);
    expect(task.nextRunAt).to.be.a('string');
    await eventually(async () => (await history('pausable')).some((e) => e.triggerType === 'cron'));
    await h.request('disable', { name: 'pausable' });
    await sleep(100);
    const count = (await history('pausable')).length;
    await sleep(1300);
    expect(await history('pausable')).to.have.length(count);
  });

  it('follows an update at once: a new expression, then none (on-demand)', async () => {
    await h.request('create', { name: 'changing', skillName: 'daily-meeting-digest', cronExpression: '0 0 1 1 *' });
    const { task } = await h.request<{ task: Task }>('update', {
      name: 'changing',
      changes: { cronExpression: '* * * * * *' },
    });
    expect(Date.parse(task.nextRunAt!) - Date.now()).to.be.below(1000);
    await eventually(async () => (await history('changing')).length > 0);
    const onDemand = await h.request<{ task: Task }>('update', { name: 'changing', changes: { cronExpression: null } });
    expect(onDemand.task).to.include({ isScheduled: false, nextRunAt: null });
    expect(onDemand.task).not.to.have.property('cronExpression');
    await sleep(100);
    const count = (await history('changing')).length;
    await sleep(1300);
    expect(await history('changing')).to.have.length(count);
  });

  it('keeps tasks and their schedules across a restart and recomputes nextRunAt', async () => {
    await h.request('create', {
      name: 'survivor',
      skillName: 'daily-meeting-digest',
      cronExpression: '* * * * * *',
      timezone: 'europe/paris',
    });
    await h.request('create', { name: 'on-demand', skillName: 'latest-meeting-action-items', timeout: 1234 });
    await eventually(async () => (await history('survivor')).length > 0);
    const before = (await history('survivor')).length;
    await h.restart(); // every instance stopped, the store closed and opened again
    const { tasks } = await h.request<{ tasks: Task[] }>('list', {});
    expect(tasks.map((t) => t.name)).to.deep.equal(['on-demand', 'survivor']);
    expect(tasks[0]).to.include({ isScheduled: false, timeoutMs: 1234, nextRunAt: null });
    expect(tasks[1]).to.include({ isScheduled: true, timezone: 'Europe/Paris', cronExpression: '* * * * * *' });
    expect(Date.parse(tasks[1].nextRunAt!)).to.be.above(Date.now() - 50);
    await eventually(async () => (await history('survivor')).length > before);
  });

  it('does not replay ticks missed while the service was down', async () => {
    await h.request('create', { name: 'ticker', skillName: 'daily-meeting-digest', cronExpression: '* * * * * *' });
    await eventually(async () => (await history('ticker')).length > 0);
    // Go down for three ticks.
    await h.stopInstances();
    await sleep(3000);
    const restartedAt = Date.now();
    await h.startInstance({ allowSecondsField: true });
    await sleep(1500);
    const afterRestart = (await history('ticker')).filter((e) => Date.parse(e.startedAt) >= restartedAt);
    // At most the ticks of the 1.5 s since: the three missed ones did not come back.
    expect(afterRestart.length).to.be.within(1, 2);
    for (const run of afterRestart) expect(Date.parse(run.startedAt) % 1000).to.be.below(250);
  });

  it('fires each tick from exactly one instance: the lease holder; another takes over when it goes', async () => {
    const second = await h.startInstance();
    await h.request('create', { name: 'clustered', skillName: 'daily-meeting-digest', cronExpression: '* * * * * *' });
    await sleep(2600);
    const firstStarted = await h.first.counter('tasks_ticks_total', { outcome: 'started' });
    expect(firstStarted).to.be.at.least(2);
    expect(await second.counter('tasks_ticks_total', { outcome: 'started' })).to.equal(0);
    expect(await second.counter('tasks_ticks_total', { outcome: 'not_leader' })).to.be.at.least(2);
    const runs = await history('clustered');
    const ticks = runs.map((e) => Math.floor(Date.parse(e.startedAt) / 1000));
    expect(new Set(ticks).size).to.equal(ticks.length);

    await h.first.running.stop(); // releases the lease
    await eventually(async () => (await second.counter('tasks_ticks_total', { outcome: 'started' })) >= 1, 4000);
  });
});

describe('scheduler lease', () => {
  const harness = harnessForSuite();

  it('passes to another instance within the ttl when its holder dies without letting go', async () => {
    const h = harness();
    const collections = SchedulerLease.collections(h.store);
    const make = (instanceId: string) =>
      new SchedulerLease({ ...collections, instanceId, host: 'test', ttlMs: 1000, logger: silentLogger() });
    // The harness's own instance holds the lease already; let it go first.
    await h.stopInstances();
    const a = make('a');
    const b = make('b');
    await a.start();
    await b.start();
    expect(a.held()).to.equal(true);
    expect(b.held()).to.equal(false);
    const diedAt = Date.now();
    await a.stop({ release: false }); // a crash: the lease stays in the store until it expires
    expect(a.held()).to.equal(false);
    await eventually(async () => b.held(), 3000);
    expect(Date.now() - diedAt).to.be.within(500, 2500);
    expect(await b.liveInstances()).to.include('b');
    await b.stop();
  });
});
