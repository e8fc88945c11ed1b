/** The actor's mailbox: one message at a time, in order, through failures and awaited handlers. */
import { expect } from 'chai';
import { Mailbox } from '../src/actor/mailbox.js';
import { eventually, sleep } from '../../../test/support/wait.js';

describe('actor mailbox', () => {
  it('handles messages later than posted, in order, one at a time even when a handler awaits', async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const mailbox = new Mailbox((err) => errors.push(err));
    mailbox.post(() => void seen.push('a'));
    mailbox.post(async () => {
      seen.push('b starts');
      await sleep(5);
      seen.push('b ends');
    });
    mailbox.post(() => {
      throw new Error('c fails');
    });
    mailbox.post(() => void seen.push('d'));
    expect(seen).to.deep.equal([]);
    await eventually(() => seen.length === 4, 'the posted messages handled');
    expect(seen).to.deep.equal(['a', 'b starts', 'b ends', 'd']);
    expect(errors.map((e) => (e as Error).message)).to.deep.equal(['c fails']);
    mailbox.post(() => void seen.push('e'));
    await eventually(() => seen.length === 5, 'the message posted after the others handled');
    expect(seen.at(-1)).to.equal('e');
  });

  it('keeps the order across thousands of messages posted while it drains', async () => {
    const seen: number[] = [];
    const mailbox = new Mailbox(() => undefined);
    for (let i = 0; i < 3000; i++) {
      mailbox.post(() => {
        seen.push(i);
        if (i % 700 === 699) mailbox.post(() => void seen.push(-i));
      });
    }
    await eventually(() => seen.length === 3004, 'every message handled');
    expect(seen.filter((n) => n >= 0)).to.deep.equal(Array.from({ length: 3000 }, (_, i) => i));
    expect(seen.filter((n) => n < 0)).to.deep.equal([-699, -1399, -2099, -2799]);
    expect(seen.indexOf(-699)).to.be.greaterThan(seen.indexOf(2999));
  });
});
