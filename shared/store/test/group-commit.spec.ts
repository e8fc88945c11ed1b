/** Group commit: what arrives while a write is under way goes in the next write, in order. */
import { expect } from 'chai';
import { GroupCommit } from '../src/group-commit.js';

describe('GroupCommit', () => {
  it('writes what arrives together as one batch, and what arrives during a write as the next', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const commit = new GroupCommit<number, number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return writes.length;
    });
    const first = [commit.add(1), commit.add(2)];
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [commit.add(3), commit.add(4), commit.add(5)];
    release();
    expect(await Promise.all([...first, ...second])).to.deep.equal([1, 1, 2, 2, 2]);
    expect(writes).to.deep.equal([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('rejects every item of a failed write, and goes on with the next ones', async () => {
    let fail = true;
    const commit = new GroupCommit<string>(async () => {
      if (fail) throw new Error('disk full');
    });
    const failed = await Promise.allSettled([commit.add('a'), commit.add('b')]);
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    await commit.add('c');
  });

  it('splits a backlog into batches of at most maxBatch, and flush waits for all of them', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number>(
      async (items) => {
        sizes.push(items.length);
      },
      { maxBatch: 4 },
    );
    for (let i = 0; i < 10; i++) void commit.add(i);
    await commit.flush();
    expect(sizes).to.deep.equal([4, 4, 2]);
  });
});
