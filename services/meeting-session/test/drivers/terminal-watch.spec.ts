/** A terminal screen is one seen twice (terminal-watch.ts): the rule alone, reading by reading. */
import { expect } from 'chai';
import { CONFIRM_MS, TerminalWatch } from '../../src/drivers/terminal-watch.js';

describe('a terminal screen is one seen twice', () => {
  it('is confirmed by a second reading CONFIRM_MS after the first, not sooner', () => {
    const watch = new TerminalWatch();
    expect(watch.confirmed('terminal', 'guest_refused', 0)).to.equal(false);
    expect(watch.confirmed('terminal', 'guest_refused', CONFIRM_MS - 1)).to.equal(false);
    expect(watch.confirmed('terminal', 'guest_refused', CONFIRM_MS)).to.equal(true);
  });

  it('starts over when another screen is recognized in between, or another outcome shows', () => {
    const watch = new TerminalWatch();
    watch.confirmed('terminal', 'guest_refused', 0);
    watch.confirmed('prejoin', null, 250);
    expect(watch.confirmed('terminal', 'guest_refused', 600)).to.equal(false);
    expect(watch.confirmed('terminal', 'meeting_ended', 1200)).to.equal(false);
    expect(watch.confirmed('terminal', 'meeting_ended', 1200 + CONFIRM_MS)).to.equal(true);
  });

  it('keeps counting across an unknown (half-drawn) reading', () => {
    const watch = new TerminalWatch();
    watch.confirmed('terminal', 'bot_detected', 0);
    watch.confirmed('unknown', null, 250);
    expect(watch.confirmed('terminal', 'bot_detected', CONFIRM_MS)).to.equal(true);
  });
});
