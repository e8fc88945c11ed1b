/**
 * Runs waiting for a slot (TASKS_MAX_CONCURRENT): the real service on a real store and bus, the
 * model a real HTTP server that answers slowly, so runs queue up behind two slots.
 */
import { expect } from 'chai';
import type { TaskExecution } from '@notetaker/contracts';
import { startFakeLlm, type FakeLlm } from '../../../test/support/fake-llm.js';
import { eventually, startHarness, type Harness } from './harness.js';

describe('runs waiting for a slot', function () {
  this.timeout(30_000);
  let llm: FakeLlm;
  let h: Harness;
  /** When each model request arrived. */
  let arrivals: number[];

  const latest = async (name: string): Promise<TaskExecution> =>
    (await h.request<{ executions: TaskExecution[] }>('history', { name, limit: 1, offset: 0 })).executions[0];
  const createAll = async (names: string[], timeout?: number) => {
    for (const name of names) {
      await h.request('create', { name, skillName: 'daily-meeting-digest', ...(timeout && { timeout }) });
    }
  };
  const runAll = async (names: string[]) => {
    for (const name of names) await h.request('run', { name });
  };

  before(async () => {
    llm = await startFakeLlm();
  });
  after(async () => {
    await llm.close();
  });
  beforeEach(async () => {
    arrivals = [];
    h = await startHarness({ ...llm.env(), TASKS_MAX_CONCURRENT: '2' });
  });
  afterEach(async () => {
    await h.stop();
  });

  it('runs at most two at once; the others show running while they wait, then run in order', async () => {
    llm.respond(() => {
      arrivals.push(Date.now());
      return { answer: 'done', delayMs: 400 };
    });
    const names = ['q1', 'q2', 'q3', 'q4', 'q5'];
    await createAll(names);
    await runAll(names);
    for (const name of names) expect((await latest(name)).status).to.equal('running');
    expect(await h.first.counter('tasks_waiting')).to.equal(3);
    await eventually(async () => {
      const all = await Promise.all(names.map(latest));
      return all.every((e) => e.status === 'completed');
    }, 10_000);
    expect(arrivals).to.have.length(5);
    // With two slots, the third request can only start once the first answer is in.
    for (let k = 2; k < arrivals.length; k++) expect(arrivals[k] - arrivals[k - 2]).to.be.at.least(380);
    expect(await h.first.counter('tasks_waiting')).to.equal(0);
  });

  it('times out a run that waited past its timeout without calling the model for it', async () => {
    llm.respond(() => {
      arrivals.push(Date.now());
      return { answer: 'too late', delayMs: 5000 };
    });
    await createAll(['slow1', 'slow2', 'starved'], 1000);
    await runAll(['slow1', 'slow2', 'starved']);
    const starved = await eventually(async () => {
      const e = await latest('starved');
      return e.status !== 'running' && e;
    }, 5000);
    expect(starved).to.include({ status: 'timeout', resultSummary: 'Timed out after 1000 ms' });
    expect(starved.durationMs).to.be.within(1000, 1500);
    expect(arrivals).to.have.length(2, 'only the two runs with a slot reached the model');
    for (const name of ['slow1', 'slow2']) {
      expect(await eventually(async () => (await latest(name)).status !== 'running' && latest(name))).to.include({
        status: 'timeout',
      });
    }
  });

  it('removes a waiting run with its task, and records waiting runs stale when the service stops', async () => {
    llm.respond(() => ({ answer: 'slow', delayMs: 3000 }));
    await createAll(['busy1', 'busy2', 'waits', 'doomed']);
    await runAll(['busy1', 'busy2', 'waits', 'doomed']);
    expect(await h.request('delete', { name: 'doomed' })).to.include({
      message: 'Task doomed deleted and its running execution cancelled',
    });
    expect(await h.first.counter('tasks_waiting')).to.equal(1);
    await h.restart();
    for (const name of ['busy1', 'busy2', 'waits']) {
      expect(await latest(name)).to.include({
        status: 'stale',
        resultSummary: 'The service stopped while this execution was running',
      });
    }
    const gone = await h.request('history', { name: 'doomed', limit: 1, offset: 0 }).catch((err: Error) => err);
    expect(gone).to.include({ status: 404 });
  });
});
