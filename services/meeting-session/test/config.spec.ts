/** The product's rules as meeting-session's defaults: what an install gets with no variables set. */
import { expect } from 'chai';
import { loadMeetingSessionConfig } from '../src/config.js';

describe('meeting-session configuration defaults', () => {
  const defaults = loadMeetingSessionConfig({});

  it('hosts at most 10 meetings per worker', () => {
    expect(defaults.maxMeetingsPerWorker).to.equal(10);
  });

  it('leaves after 60 s alone, gives up after 2 min joining or 10 min in the lobby, and leaves at 4 h', () => {
    expect(defaults.aloneTimeoutMs).to.equal(60_000);
    expect(defaults.joinTimeoutMs).to.equal(2 * 60_000);
    expect(defaults.lobbyTimeoutMs).to.equal(10 * 60_000);
    expect(defaults.maxDurationMs).to.equal(4 * 60 * 60_000);
  });

  it("ends a lost worker's meetings within 30 s: a lease runs out, and the next sweep finds it", () => {
    // Worst case: the worker dies right after renewing; its lease ends `workerLeaseMs` later and the
    // sweep (every `heartbeatMs`) may have run just before that.
    expect(defaults.workerLeaseMs + defaults.heartbeatMs).to.be.at.most(30_000);
    // A lease outlives a missed heartbeat or two, so a slow renewal is not a death.
    expect(defaults.workerLeaseMs).to.be.at.least(2 * defaults.heartbeatMs);
  });

  it('spools an hour of recorded audio for every seat (16 MB each at 32 kbit/s), under DATA_DIR unless told', () => {
    expect(defaults.recordingSpool).to.deep.equal({ dir: null, maxBytes: 160_000_000, appendTimeoutMs: 10_000 });
    // 32 kbit/s for an hour, with its Ogg pages, fits a seat's share.
    expect((32_000 / 8) * 3600 * 1.02).to.be.below(defaults.recordingSpool.maxBytes / defaults.maxMeetingsPerWorker);
    const set = loadMeetingSessionConfig({ MAX_MEETINGS_PER_WORKER: '4', RECORDING_SPOOL_DIR: '/spool' });
    expect(set.recordingSpool).to.include({ dir: '/spool', maxBytes: 64_000_000 });
    expect(loadMeetingSessionConfig({ RECORDING_SPOOL_MAX_MB: '0.5' }).recordingSpool.maxBytes).to.equal(500_000);
    expect(() => loadMeetingSessionConfig({ RECORDING_SPOOL_MAX_MB: '0' })).to.throw(/RECORDING_SPOOL_MAX_MB/);
  });

  it('takes each duration from its variable', () => {
    const config = loadMeetingSessionConfig({ JOIN_TIMEOUT_MS: '5000', LOBBY_TIMEOUT_MS: '7000' });
    expect([config.joinTimeoutMs, config.lobbyTimeoutMs]).to.deep.equal([5000, 7000]);
  });

  it("reads the drivers' variables too, so a bad one stops the service at start, named", () => {
    expect(loadMeetingSessionConfig({}).displayName).to.equal('Notetaker');
    expect(loadMeetingSessionConfig({ BOT_DISPLAY_NAME: ' Minutes ' }).displayName).to.equal('Minutes');
    expect(() => loadMeetingSessionConfig({ BOT_BROWSER_ARGS: '--no-sandbox', BOT_HEADLESS: 'maybe' })).to.throw(
      /BOT_HEADLESS[\s\S]*BOT_BROWSER_ARGS: must be a JSON array of strings/,
    );
  });
});
