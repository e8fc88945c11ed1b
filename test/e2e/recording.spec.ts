/**
 * A recorded meeting on each platform, in real Chromium against the simulators, which speak with
 * espeak-ng over a real WebRTC path in the page (Meet a track per recent speaker, Teams and Zoom one mixed
 * track). The file must be a playable Ogg that ffmpeg decodes, as long as the meeting within 2 s,
 * with each utterance's sound where the meeting put it and silence between; a Chromium crash in
 * the middle leaves a playable file missing at most 2 s.
 */
import { expect } from 'chai';
import { eventually, sleep } from '../support/wait.js';
import { browserPids } from './support/chromium.js';
import { eventTime, expectWhereSaid, savedRecording } from './support/recording.js';
import { PLATFORMS, statusOf, useWorld } from './support/world.js';

describe('whole stack in real Chromium: recording a meeting', function () {
  this.timeout(90_000);
  const world = useWorld();

  for (const { platform, label } of [...PLATFORMS, { platform: 'zoom' as const, label: 'Zoom' }]) {
    it(`${label}: a playable Ogg as long as the meeting, each utterance where it was said, silence between`, async () => {
      const m = await world().start(platform, { meeting: { lobby: false }, request: { recording: 'audio' } });
      m.sim.join('Alice Example');
      m.sim.join('Bob Example');
      const live = eventTime(await world().waitForStatus(m.meetingId, 'live'));
      const bot = await m.sim.waitForBot((b) => b.captionsOn);

      const said = [await m.sim.say('Alice Example', 'I think we should ship the release on Friday.')];
      await sleep(1500);
      said.push(await m.sim.say('Bob Example', 'Then I will update the release notes tomorrow.'));
      await sleep(1000);
      const stoppedAt = Date.now();
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended');

      const saved = await savedRecording(world(), m);
      const meetingMs = stoppedAt - live;
      expect(saved.durationMs, 'the recording lasts the meeting').to.be.within(meetingMs - 2000, meetingMs + 2000);
      expect(saved.audio.seconds * 1000).to.be.within(meetingMs - 2000, meetingMs + 2000);
      expectWhereSaid(saved, said, bot.guestId);
      // About 32 kbit/s: a few KB per second of meeting, never raw PCM.
      expect(saved.bytes / (saved.durationMs / 1000)).to.be.within(500, 6000);
    });
  }

  it('Google Meet: Chromium killed mid-meeting leaves a playable file missing at most 2 s', async () => {
    const earlier = new Set(browserPids());
    const m = await world().start('google_meet', { meeting: { lobby: false }, request: { recording: 'audio' } });
    m.sim.join('Alice Example');
    const live = eventTime(await world().waitForStatus(m.meetingId, 'live'));
    const bot = await m.sim.waitForBot((b) => b.captionsOn);
    const said = await m.sim.say('Alice Example', 'This part of the meeting must survive the crash.');
    await sleep(2000);
    const browsers = browserPids().filter((pid) => !earlier.has(pid));
    expect(browsers, 'the browser launched for the meeting').to.have.length(1);
    const killedAt = Date.now();
    process.kill(browsers[0], 'SIGKILL');
    await eventually(
      () =>
        world()
          .callbacks(m.meetingId)
          .some((c) => statusOf(c) === 'error'),
      'the meeting ends in error',
      20_000,
    );
    const saved = await savedRecording(world(), m);
    const before = killedAt - live;
    expect(saved.audio.seconds * 1000, 'the recording up to the crash').to.be.within(before - 2000, before + 2000);
    expectWhereSaid(saved, [said], bot.guestId);
  });
});
