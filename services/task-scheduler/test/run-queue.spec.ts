/**
 * The queue of runs waiting for a slot, directly, on mocked timers and clock (node:test's
 * MockTimers): deadlines are checked by one timer, at the earliest one, without waiting for real.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { RunQueue } from '../src/run-queue.js';

interface Run {
  name: string;
  deadline: number;
}

describe('run queue', () => {
  let expired: string[];
  let queue: RunQueue<Run>;
  const run = (name: string, inMs: number): Run => ({ name, deadline: Date.now() + inMs });

  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    expired = [];
    queue = new RunQueue<Run>((r) => expired.push(r.name));
  });
  afterEach(() => {
    queue.drain();
    mock.timers.reset();
  });

  it('hands out runs first in, first out, skipping removed ones', () => {
    const [a, b, c] = [run('a', 60_000), run('b', 60_000), run('c', 60_000)];
    for (const r of [a, b, c]) queue.push(r);
    expect(queue.remove(b)).to.equal(true);
    expect(queue.remove(b)).to.equal(false);
    expect(queue.length).to.equal(2);
    expect([queue.shift()?.name, queue.shift()?.name, queue.shift()]).to.deep.equal(['a', 'c', undefined]);
  });

  it('expires each waiting run at its deadline, earliest first', () => {
    queue.push(run('late', 3000));
    queue.push(run('early', 1000));
    queue.push(run('middle', 2000));
    mock.timers.tick(999);
    expect(expired).to.deep.equal([]);
    mock.timers.tick(1);
    expect(expired).to.deep.equal(['early']);
    mock.timers.tick(1000);
    expect(expired).to.deep.equal(['early', 'middle']);
    expect(queue.length).to.equal(1);
    mock.timers.tick(1000);
    expect(expired).to.deep.equal(['early', 'middle', 'late']);
    expect(queue.shift()).to.equal(undefined);
  });

  it('never expires a run that left the queue in time, among thousands', () => {
    for (let i = 0; i < 5000; i++) queue.push(run(`r${i}`, 10_000));
    for (let i = 0; i < 4999; i++) expect(queue.shift()?.name).to.equal(`r${i}`);
    mock.timers.tick(10_000);
    expect(expired).to.deep.equal(['r4999']);
    expect(queue.length).to.equal(0);
  });

  it('drains every waiting run, oldest first, and fires nothing afterwards', () => {
    queue.push(run('x', 100));
    queue.push(run('y', 200));
    expect(queue.drain().map((r) => r.name)).to.deep.equal(['x', 'y']);
    mock.timers.tick(1000);
    expect(expired).to.deep.equal([]);
  });
});
