/**
 * Who is speaking, read from the tiles (page level, real Chromium against the simulators): while
 * a participant's audio plays, a reading of the page names them in `participants.speaking`, and
 * shortly after it ends nobody; two people talking over each other are both named; the bot never
 * is. Each platform's builds draw the indicator their own way (the pages' `speakingMark`: Meet's
 * equalizer icon, audio-level bars or a speaking attribute; Teams' voice-level ring, its tile
 * label or a speaking attribute): a page per way, side by side, each in its own meeting.
 * SIM_SEED=<seed> replays one page load.
 */
import { expect } from 'chai';
import {
  choiceOf,
  MEET_CHOICES,
  seedWithChoice,
  TEAMS_CHOICES,
  type SimPlatform,
  type Utterance,
} from '../../../../test/simulators/index.js';
import { peopleOf, speakersOf } from '../../src/drivers/tile-readings.js';
import {
  DISPLAY_NAME,
  enterCall,
  pagesOnSimulator,
  SeededPage,
  seededMeetingId,
  seedPerVariant,
  withPages,
} from './call-page.js';
import { skipWithoutEspeak } from './helpers.js';
import { eventually, sleep } from '../../../../test/support/wait.js';

const ALICE = 'Alice Example';
const BOB = 'Bob Jones';

/** The indicator trails the voice by about 300 ms; a reading this soon after the end may still show it. */
const STILL_LIT_MS = 200;
/** By this long after the end (the trail, and a busy page's late timer) the indicator is off. */
const OFF_BY_MS = 1_200;

const CHOICES: Record<Exclude<SimPlatform, 'zoom'>, readonly string[]> = {
  google_meet: MEET_CHOICES.speakingMark,
  teams: TEAMS_CHOICES.speakingMark,
};

/** One reading of who speaks: taken between `from` and `to` (epoch ms). */
interface Heard {
  from: number;
  to: number;
  speaking: string[];
}

/** One page load in its own meeting: its seed and drawn indicator name it in every failure. */
class Variant extends SeededPage {
  override get label(): string {
    return `${choiceOf(this.platform, this.seed, 'speakingMark')}: ${super.label}`;
  }

  /** Reads who speaks, over and over, until `done` resolves (and `afterMs` more). */
  async listen(done: Promise<unknown>, afterMs: number): Promise<Heard[]> {
    const heard: Heard[] = [];
    let over = false;
    void done.then(() => sleep(afterMs)).finally(() => (over = true));
    while (!over) {
      const from = Date.now();
      const { participants } = await this.call.inspect();
      expect(participants, this.label).to.not.equal(null);
      // The bot is never among the people nor the speakers; the people are those in the call.
      expect(peopleOf(participants!, DISPLAY_NAME).sort(), this.label).to.deep.equal([ALICE, BOB]);
      expect(speakersOf(participants!, DISPLAY_NAME), this.label).to.deep.equal(participants!.speaking);
      heard.push({ from, to: Date.now(), speaking: [...participants!.speaking].sort() });
      await sleep(40);
    }
    return heard;
  }
}

describe('who is speaking, read from the tiles (page level, each way of drawing it)', function () {
  // About 15 s a platform; more on a machine busy with other work.
  this.timeout(90_000);
  skipWithoutEspeak();
  const suite = pagesOnSimulator();

  for (const platform of ['google_meet', 'teams'] as const) {
    const name = platform === 'teams' ? 'Teams' : 'Meet';

    it(`${name}: the speaker while their audio plays, then nobody; two overlapping speakers both`, async () => {
      const seeds = seedPerVariant(CHOICES[platform], (mark, from) =>
        seedWithChoice(platform, 'speakingMark', mark, from),
      );
      await withPages(suite.browser, seeds.length, async (pages) => {
        const variants = seeds.map((seed, i) => {
          const meeting = suite.sim.meeting(seededMeetingId(platform, seed, 'speaking'), {
            lobby: false,
            markupSeed: seed,
            captionsFromSpeech: false,
          });
          meeting.join(ALICE);
          meeting.join(BOB);
          return new Variant(platform, seed, meeting, pages[i]);
        });
        await Promise.all(
          variants.map(async (v) => (v.call = await enterCall(v.page, platform, suite.sim, v.meeting.id))),
        );
        await Promise.all(variants.map((v) => speaksAlone(v)));
        await Promise.all(variants.map((v) => speakTogether(v)));
      });
    });
  }
});

/** Alice alone: nobody before her sound, Alice during it and just after, nobody soon after. */
async function speaksAlone(v: Variant): Promise<void> {
  const saying = v.meeting.say(ALICE, 'We should ship the new release on Friday.');
  let said: Utterance | null = null;
  const heard = await v.listen(
    saying.then((u) => (said = u)),
    OFF_BY_MS + 500,
  );
  const u = said!;
  const end = u.startedAt + u.durationMs;
  const where = (what: string) =>
    `${v.label}: ${what}; utterance ${u.startedAt}-${end}; heard ${JSON.stringify(heard.map((h) => [h.from - u.startedAt, h.speaking]))}`;

  const before = heard.filter((h) => h.to < u.startedAt);
  expect(before.length, where('readings before the sound')).to.be.greaterThan(0);
  for (const h of before) expect(h.speaking, where('nobody speaks before the sound')).to.deep.equal([]);

  const during = heard.filter((h) => h.from >= u.startedAt && h.to <= end + STILL_LIT_MS);
  const lit = during.filter((h) => h.speaking.join() === ALICE);
  expect(lit.length, where('Alice shown while she speaks')).to.be.greaterThan(0);
  // The first moments may go by before a busy page's timer lights the tile; from then on it stays lit.
  const firstLit = during.indexOf(lit[0]);
  for (const h of during.slice(firstLit)) expect(h.speaking, where('Alice shown to the end')).to.deep.equal([ALICE]);

  const after = heard.filter((h) => h.from > end + OFF_BY_MS);
  expect(after.length, where('readings after the sound')).to.be.greaterThan(0);
  for (const h of after) expect(h.speaking, where('nobody speaks after the sound')).to.deep.equal([]);
}

/** Alice, and Bob over her: both shown while both speak, then nobody. */
async function speakTogether(v: Variant): Promise<void> {
  const alice = v.meeting.say(ALICE, 'Then we ship on Monday, after one more day of testing everything.');
  await sleep(400);
  const bob = v.meeting.say(BOB, 'Monday works for me.');
  await eventually(
    async () => (await v.call.inspect()).participants?.speaking.slice().sort().join() === [ALICE, BOB].join(),
    `${v.label}: Alice and Bob both shown speaking`,
    15_000,
  );
  await Promise.all([alice, bob]);
  await eventually(
    async () => (await v.call.inspect()).participants?.speaking.length === 0,
    `${v.label}: nobody shown speaking once both are done`,
    OFF_BY_MS + 3_000,
  );
}

describe('speakersOf: who speaks, never the bot', () => {
  it('keeps what the page read when it told the bot tile apart', () => {
    expect(speakersOf({ names: [ALICE], selfFound: true, speaking: [ALICE] }, DISPLAY_NAME)).to.deep.equal([ALICE]);
  });

  it("drops the bot's name when its unmarked tile is among the tiles, spacing and case aside", () => {
    const reading = { names: [ALICE, 'notetaker '], selfFound: false, speaking: [ALICE, 'notetaker '] };
    expect(speakersOf(reading, DISPLAY_NAME)).to.deep.equal([ALICE]);
  });

  it('keeps a person named like the bot: with two such tiles the one speaking is theirs (the bot is muted)', () => {
    const reading = { names: [DISPLAY_NAME, DISPLAY_NAME], selfFound: false, speaking: [DISPLAY_NAME] };
    expect(speakersOf(reading, DISPLAY_NAME)).to.deep.equal([DISPLAY_NAME]);
  });
});
