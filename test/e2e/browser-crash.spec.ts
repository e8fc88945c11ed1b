/**
 * Chromium killed in the middle of a meeting (SIGKILL to the browser process, as the OOM killer
 * would): the meeting ends in error `browser_crashed`, the segments so far (the turn still open
 * included, as far as it was shown) stay in the transcript and the document, no Chromium process
 * is left behind, and the stack launches a fresh browser for the next meeting.
 */
import { expect } from 'chai';
import { growWords } from '../simulators/index.js';
import { browserGroupGone, browserPids, chromiumGone } from './support/chromium.js';
import { expectKeptAsSaid, finalizedSegments, finishedStream } from './support/stream.js';
import { failedWith, JOINED_AND_CAPTIONED, shape } from './support/shape.js';
import { payloadOf, PLATFORMS, useWorld } from './support/world.js';

describe('whole stack in real Chromium: the browser dies mid-meeting', function () {
  this.timeout(45_000);
  const world = useWorld();

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: error browser_crashed, the segments so far kept, nothing left running, the next meeting served`, async () => {
      const earlier = new Set(browserPids());
      const m = await world().start(platform, { meeting: { lobby: false } });
      m.sim.join('Alice Example');
      await world().waitForStatus(m.meetingId, 'live');
      await m.sim.waitForBot((bot) => bot.captionsOn);
      await m.sim.speak('Alice Example', growWords('the numbers for October are in'));
      await m.sim.speak('Bob Jones', growWords('and they look better than we feared'));
      await world().waitForCallback(
        m.meetingId,
        () => finalizedSegments(world().callbacks(m.meetingId)).length === 2,
        'two segments',
      );
      // A third turn is still open (shown, not yet final) when the browser dies: its words are kept too.
      await m.sim.speak('Alice Example', growWords('so we keep the plan'));
      await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'caption_partial' && payloadOf(c).text === 'so we keep the plan',
        'the open turn',
      );

      // This meeting is the only one running, so the stack launched exactly one browser for it.
      const browsers = browserPids().filter((pid) => !earlier.has(pid));
      expect(browsers, 'browsers launched for the meeting').to.have.length(1);
      process.kill(browsers[0], 'SIGKILL');

      const callbacks = await finishedStream(world(), m, 'error');
      expect(shape(callbacks)).to.deep.equal([...JOINED_AND_CAPTIONED, ...failedWith('browser_crashed')]);
      expect(payloadOf(callbacks.at(-1)!)).to.deep.equal({
        status: 'error',
        previousStatus: 'live',
        reason: 'browser_crashed',
      });
      const segments = await expectKeptAsSaid(world(), m, callbacks, 'error', { document: true });
      expect(segments.map((s) => s.speaker)).to.deep.equal(['Alice Example', 'Bob Jones', 'Alice Example']);
      expect(payloadOf(callbacks.at(-2)!)).to.include({ segmentsWritten: 3, totalSegments: 3 });

      expect(await chromiumGone(earlier), 'Chromium processes left after the crash').to.deep.equal([]);
      expect(await browserGroupGone(browsers[0]), 'orphans of the dead browser').to.deep.equal([]);

      // The URL is free again and a fresh browser takes the next meeting.
      const next = await world().start(platform, { nativeId: m.sim.id });
      await world().waitForStatus(next.meetingId, 'live');
      const [nextBrowser, ...more] = browserPids().filter((pid) => !earlier.has(pid));
      expect(more, 'one browser for the next meeting').to.deep.equal([]);
      expect(nextBrowser).to.be.a('number').and.not.equal(browsers[0]);
      expect((await world().stop(next.meetingId)).status).to.equal(200);
      await world().waitForStatus(next.meetingId, 'ended');
      expect(await chromiumGone(earlier), 'Chromium processes left after the last meeting').to.deep.equal([]);
      expect(await browserGroupGone(nextBrowser), 'orphans of the closed browser').to.deep.equal([]);
    });
  }
});
