/** A worker's bot seats: taken, freeing, freed, and the placements that wait for a freeing seat. */
import { expect } from 'chai';
import { Seats } from '../src/worker/seats.js';

describe('bot seats', () => {
  const seats = (total: number, waitMs = 1000) => {
    let changes = 0;
    const s = new Seats(total, waitMs, () => changes++);
    return { s, changes: () => changes };
  };

  it('takes free seats at once and refuses beyond them when none is being freed', () => {
    const { s, changes } = seats(2);
    expect([s.take('a'), s.take('b'), s.take('c')]).to.deep.equal([true, true, false]);
    expect([s.inUse, s.hasRoom()]).to.deep.equal([2, false]);
    expect(changes()).to.equal(2);
  });

  it('hands a seat being freed to the placement waiting for it, first come first served', async () => {
    const { s } = seats(1);
    s.take('a');
    s.willFree('a');
    expect(s.hasRoom()).to.equal(true);
    const waiting = s.take('b');
    expect(waiting).to.be.an.instanceOf(Promise);
    expect(s.take('c')).to.equal(false); // the one freeing seat is promised to b
    s.free('a');
    expect(await waiting).to.equal(true);
    expect(s.inUse).to.equal(1);
    s.free('a'); // idempotent
    expect(s.inUse).to.equal(1);
  });

  it('gives up waiting after the wait time, and when the worker stops', async () => {
    const { s } = seats(1, 30);
    s.take('a');
    s.willFree('a');
    expect(await s.take('b')).to.equal(false);
    const stopping = s.take('c');
    s.refuseWaiting();
    expect(await stopping).to.equal(false);
    s.free('a');
    expect([s.inUse, s.hasRoom()]).to.deep.equal([0, true]);
  });
});
