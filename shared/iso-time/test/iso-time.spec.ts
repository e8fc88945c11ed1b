/** isoTime against Date's own formatting, across seconds, fractions, the epoch and far years. */
import { expect } from 'chai';
import { isoTime } from '../src/iso-time.js';

describe('isoTime', () => {
  it('formats every millisecond as Date.prototype.toISOString does', () => {
    const base = Date.parse('2026-11-25T23:59:58.000Z');
    for (let ms = base; ms < base + 3000; ms++) expect(isoTime(ms)).to.equal(new Date(ms).toISOString());
  });

  it('gives a time repeated at once the same string, as thousands of runs started in one millisecond share', () => {
    const ms = Date.parse('2026-11-25T10:00:00.123Z');
    expect(isoTime(ms))
      .to.equal(isoTime(ms + 0.5))
      .and.to.equal('2026-11-25T10:00:00.123Z');
  });

  it('agrees on fractions, before the epoch, and in years past 9999, in any order', () => {
    const times = [1.7, 0, -1, -1.5, -999, -1000, 1764100000123.9, 253402300800005, 253402300799999, 86399999, 5];
    for (const ms of [...times, ...times.reverse()]) expect(isoTime(ms)).to.equal(new Date(ms).toISOString());
  });
});
