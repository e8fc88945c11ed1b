/**
 * The auto-leave rules with the production limits (2 min join, 10 min lobby, 1 min alone, 4 h in
 * all) on node:test's mocked timers: each fires at its limit to the millisecond and not before,
 * without the test waiting for it (lifecycle.contract.spec.ts drives the same rules through a
 * whole actor, with short limits, on real time).
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { AutoLeave, type AutoLeaveReason } from '../src/actor/auto-leave.js';
import { loadMeetingSessionConfig } from '../src/config.js';

const MINUTE = 60_000;

describe('auto-leave timers, at the production limits', () => {
  const limits = loadMeetingSessionConfig({});
  let fired: AutoLeaveReason[];
  let rules: AutoLeave;

  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout'] });
    fired = [];
    rules = new AutoLeave(limits, (reason) => fired.push(reason));
  });
  afterEach(() => {
    rules.clear();
    mock.timers.reset();
  });

  /** Moves the clock on by `ms`: what had fired 1 ms before, and what had fired at `ms`. */
  function firedBeforeAndAt(ms: number) {
    mock.timers.tick(ms - 1);
    const before = [...fired];
    mock.timers.tick(1);
    return { before, at: [...fired] };
  }

  it('uses 2 min to join, 10 min in the lobby, 1 min alone and 4 h in all by default', () => {
    expect(limits).to.include({
      joinTimeoutMs: 2 * MINUTE,
      lobbyTimeoutMs: 10 * MINUTE,
      aloneTimeoutMs: MINUTE,
      maxDurationMs: 240 * MINUTE,
    });
  });

  it('leaves with join_timeout when the join gets nowhere for the whole join limit', () => {
    rules.started();
    const { before, at } = firedBeforeAndAt(2 * MINUTE);
    expect(before).to.deep.equal([]);
    expect(at).to.deep.equal(['join_timeout']);
  });

  it('counts the lobby wait from entering the lobby: time spent joining does not shorten it', () => {
    rules.started();
    mock.timers.tick(2 * MINUTE - 1000);
    rules.inLobby();
    const { before, at } = firedBeforeAndAt(10 * MINUTE);
    expect(before, 'the join limit no longer applies in the lobby').to.deep.equal([]);
    expect(at).to.deep.equal(['lobby_timeout']);
  });

  it('a second lobby notice does not restart the wait', () => {
    rules.started();
    rules.inLobby();
    mock.timers.tick(5 * MINUTE);
    rules.inLobby();
    mock.timers.tick(5 * MINUTE);
    expect(fired).to.deep.equal(['lobby_timeout']);
  });

  it('once admitted, leaves alone a minute after the last participant, and not while anyone is there', () => {
    rules.started();
    rules.inLobby();
    rules.admitted(2);
    mock.timers.tick(30 * MINUTE);
    expect(fired, 'no join or lobby timeout after admission').to.deep.equal([]);
    rules.participants(0);
    mock.timers.tick(MINUTE - 1);
    rules.participants(1); // someone came back: the countdown stops
    mock.timers.tick(10 * MINUTE);
    expect(fired).to.deep.equal([]);
    rules.participants(0);
    mock.timers.tick(MINUTE);
    expect(fired).to.deep.equal(['alone']);
  });

  it('admitted into an empty meeting starts the alone countdown at once', () => {
    rules.started();
    rules.admitted(0);
    mock.timers.tick(MINUTE);
    expect(fired).to.deep.equal(['alone']);
  });

  it('leaves with max_duration four hours after the start, whoever is there', () => {
    rules.started();
    rules.admitted(3);
    const { before, at } = firedBeforeAndAt(240 * MINUTE);
    expect(before).to.deep.equal([]);
    expect(at).to.deep.equal(['max_duration']);
  });

  it('fires nothing after clear (the meeting ended)', () => {
    rules.started();
    rules.inLobby();
    rules.clear();
    mock.timers.tick(24 * 60 * MINUTE);
    expect(fired).to.deep.equal([]);
  });
});
