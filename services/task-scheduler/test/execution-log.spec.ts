/**
 * The execution log directly, on a real embedded store on disk: a finished run moves from the
 * collection into the history, and a crash between the two steps neither loses nor repeats it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openEmbeddedStore, type Store } from '@notetaker/store';
import { ExecutionLog } from '../src/execution-log.js';
import type { ExecutionDoc, TaskDoc } from '../src/records.js';

function running(name: string, n: number): ExecutionDoc {
  const id = `exec_${n}`;
  return {
    _id: id,
    executionId: id,
    executionType: 'scheduled',
    name,
    status: 'running',
    triggerType: 'cron',
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
    completedAt: null,
    durationMs: null,
    resultSummary: null,
    inputTokens: 0,
    outputTokens: 0,
    instanceId: 'here',
    runningKey: name,
  };
}
const done = { status: 'completed', resultSummary: 'ok', inputTokens: 1, outputTokens: 2 } as const;

describe('execution log', () => {
  let dir: string;
  let store: Store;
  const open = async (limit = 3) => {
    store = await openEmbeddedStore({ service: 'task-scheduler', dataDir: dir });
    const log = new ExecutionLog(
      store.collection<ExecutionDoc>('executions'),
      store.historyLog('execution_history'),
      store.collection<TaskDoc>('tasks'),
      limit,
    );
    await log.init();
    return log;
  };
  const ids = async (log: ExecutionLog, name = 't') => (await log.history(name, 100, 0)).map((e) => e.executionId);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'execution-log-'));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the running record first, then finished ones newest first, and keeps the limit', async () => {
    const log = await open(10);
    for (let n = 1; n <= 13; n++) {
      const doc = running('t', n);
      await log.insertRunning(doc);
      await log.finish(doc, done, Date.parse(doc.startedAt) + 500);
    }
    const current = running('t', 14);
    await log.insertRunning(current);
    // 12 finished passed 10 by a tenth and were cut to 10; the 13th makes 11.
    const newestFirst = Array.from({ length: 12 }, (_, i) => `exec_${14 - i}`);
    expect(await ids(log)).to.deep.equal(newestFirst);
    const [first, second] = await log.history('t', 2, 0);
    expect(first).to.include({ status: 'running', executionId: 'exec_14' });
    expect(second).to.include({ status: 'completed', resultSummary: 'ok', durationMs: 500, inputTokens: 1 });
    expect((await log.history('t', 2, 3)).map((e) => e.executionId)).to.deep.equal(['exec_11', 'exec_10']);
    await log.finish(current, done, Date.now());
    expect(await ids(log)).to.have.length(10, 'trimmed to the limit once it passed it by a tenth');
    expect(await store.collection('executions').countDocuments()).to.equal(
      0,
      'no finished record stays in the collection',
    );
  });

  it('after a crash between marking a record finished and moving it, the next start moves it once', async () => {
    let log = await open();
    const moved = running('t', 1);
    await log.insertRunning(moved);
    await log.finish(moved, done, Date.now());
    // Crash A: the record was appended to the history but not deleted from the collection.
    const appended = { ...running('t', 2), status: 'completed' as const, completedAt: moved.startedAt };
    delete appended.runningKey;
    await store.collection<ExecutionDoc>('executions').insertOne(appended);
    const { _id: _, instanceId: __, tickKey: ___, ...wire } = appended;
    await store.historyLog('execution_history').append('t', JSON.stringify(wire));
    expect(await ids(log)).to.deep.equal(['exec_2', 'exec_1'], 'listed once while on its way');
    // Crash B: another task's record marked finished, not yet appended.
    const marked = { ...running('u', 3), status: 'failed' as const };
    delete marked.runningKey;
    await store.collection<ExecutionDoc>('executions').insertOne(marked);
    await store.close();

    log = await open();
    expect(await ids(log)).to.deep.equal(['exec_2', 'exec_1']);
    expect(await ids(log, 'u')).to.deep.equal(['exec_3']);
    expect(await store.collection('executions').countDocuments()).to.equal(0);
  });

  it('moves the finished records an older version kept in the collection into the history, in order', async () => {
    await open();
    const executions = store.collection<ExecutionDoc>('executions');
    // Ids that sort against time: the order must come from startedAt.
    for (const n of [3, 1, 2]) {
      const id = `old_${4 - n}`;
      const finished = { ...running('t', n), _id: id, executionId: id, status: 'completed' as const };
      delete finished.runningKey;
      await executions.insertOne(finished);
    }
    await store.close();
    const log = await open();
    expect(await ids(log)).to.deep.equal(['old_1', 'old_2', 'old_3']);
    expect(await store.collection('executions').countDocuments()).to.equal(0);
  });

  it('marks the runs of dead instances stale into the history and removes a task with its history', async () => {
    const log = await open();
    await log.insertRunning({ ...running('t', 1), instanceId: 'gone' });
    await log.insertRunning({ ...running('u', 2), instanceId: 'alive' });
    expect(await log.markStale(['alive'], 'restarted')).to.equal(1);
    expect(await log.history('t', 10, 0)).to.have.nested.property('[0].status', 'stale');
    expect(await log.isRunning('t')).to.equal(false);
    expect(await log.isRunning('u')).to.equal(true);
    await log.removeTask('t');
    expect(await ids(log)).to.deep.equal([]);
  });
});
