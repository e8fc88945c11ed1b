/**
 * The whole product on drifting markup: for each seed the simulated Meet, Teams or Zoom page is built
 * with its own wrapper elements, class names and way of marking the bot's own tile (see
 * test/simulators/markup.ts), and the bot must still join, read a conversation and deliver
 * segment_finalized, the transcript and the document equal to what was said, with the people in
 * the room and never the bot. SIM_SEED=<seed> replays one seed; titles and messages name it.
 */
import { expect } from 'chai';
import { describeMarkup, growWords, variantSeeds } from '../simulators/index.js';
import { expectKeptAsSaid } from './support/stream.js';
import { aliceThenBob } from './support/conversation.js';
import { payloadOf, PLATFORMS, useWorld } from './support/world.js';

const SEEDS_PER_PLATFORM = 5;

describe('whole stack in real Chromium on drifting markup (seeded variants)', function () {
  this.timeout(60_000);
  const world = useWorld();

  for (const { platform, label } of [...PLATFORMS, { platform: 'zoom' as const, label: 'Zoom' }]) {
    for (const seed of variantSeeds(SEEDS_PER_PLATFORM)) {
      it(`${label}, seed ${seed}: finalized segments, transcript and document equal what was said; the bot is no participant`, async () => {
        const where = describeMarkup(platform, seed);
        const m = await world().start(platform, { meeting: { lobby: false, markupSeed: seed } });
        // Teams shows her as "Alice Example (Guest)", on her tile and her caption rows.
        m.sim.join('Alice Example', { suffix: platform === 'teams' ? 'Guest' : null });
        await world().waitForStatus(m.meetingId, 'live');
        await m.sim.waitForBot((bot) => bot.captionsOn);
        // Meet adds a second tile, "Alice Example (Presentation)": still one person.
        if (platform === 'google_meet') m.sim.present('Alice Example');

        await aliceThenBob(m.sim);
        // Her last sentence goes on in a new caption block: two segments, one paragraph.
        const last = m.sim.caption('Alice Example');
        await last.play(growWords('Thanks, and since it blocks the release'));
        const rest = last.split(2);
        const lastWords = 'the release we wait. See you all next week.';
        await rest.play(growWords('we wait. See you all next week.', 'the release'));
        await world().waitForCallback(
          m.meetingId,
          (c) =>
            c.eventType === 'caption_partial' && (c.json as { payload: { text: string } }).payload.text === lastWords,
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
          expect(segments.map((s) => s.text).slice(-2), 'the last sentence, in two segments').to.deep.equal([
            'Thanks, and since it blocks',
            lastWords,
          ]);
          const joined = callbacks.filter((c) => c.eventType === 'participant_joined').map(payloadOf);
          expect(
            joined.map((p) => [p.name, p.participantCount]),
            'the people, never the bot',
          ).to.deep.equal([['Alice Example', 1]]);
          const document = await (await world().get(`/meetings/${m.meetingId}/document`, m.token)).text();
          expect(document, 'front matter participants').to.contain('participants:\n  - "Alice Example"\nplatform:');
          expect(document, 'the last sentence in one paragraph').to.match(
            /\n\*\*Alice Example\*\* \(\d\d:\d\d:\d\d\): Thanks, and since it blocks the release we wait\. See you all next week\.\n\n$/,
          );
        } catch (err) {
          (err as Error).message = `${where}: ${(err as Error).message}`;
          throw err;
        }
      });
    }
  }
});
