/**
 * The whole product on drifting markup: for each seed the simulated Meet or Teams page is built
 * with its own wrapper elements and class names (see test/simulators/markup.ts), and the bot must
 * still join, read a conversation and deliver segment_finalized, the transcript and the document
 * equal to what was said. SIM_SEED=<seed> replays one seed; titles and messages name it.
 */
import { expect } from 'chai';
import { describeMarkup, growWords, variantSeeds } from '../simulators/index.js';
import { expectKeptAsSaid } from './support/stream.js';
import { aliceThenBob } from './support/conversation.js';
import { PLATFORMS, useWorld } from './support/world.js';

const SEEDS_PER_PLATFORM = 5;

describe('whole stack in real Chromium on drifting markup (seeded variants)', function () {
  this.timeout(60_000);
  const world = useWorld();

  for (const { platform, label } of PLATFORMS) {
    for (const seed of variantSeeds(SEEDS_PER_PLATFORM)) {
      it(`${label}, seed ${seed}: finalized segments, transcript and document equal what was said`, async () => {
        const where = describeMarkup(platform, seed);
        const m = await world().start(platform, { meeting: { lobby: false, markupSeed: seed } });
        m.sim.join('Alice Example');
        await world().waitForStatus(m.meetingId, 'live');
        await m.sim.waitForBot((bot) => bot.captionsOn);

        await aliceThenBob(m.sim);
        const last = m.sim.caption('Alice Example');
        await last.play(growWords('Thanks, see you all next week.'));
        await world().waitForCallback(
          m.meetingId,
          (c) =>
            c.eventType === 'caption_partial' &&
            (c.json as { payload: { text: string } }).payload.text === 'Thanks, see you all next week.',
          `${where}: the last words read`,
        );

        expect((await world().stop(m.meetingId)).status).to.equal(200);
        await world().waitForStatus(m.meetingId, 'ended');
        const callbacks = world().callbacks(m.meetingId);
        const truth = m.sim.truth();
        expect(
          truth.pageLoads.map((load) => load.markupSeed),
          where,
        ).to.deep.equal([seed]);
        try {
          const segments = await expectKeptAsSaid(world(), m, callbacks, 'ended', { document: true });
          expect(segments, 'three turns').to.have.length(3);
        } catch (err) {
          (err as Error).message = `${where}: ${(err as Error).message}`;
          throw err;
        }
      });
    }
  }
});
