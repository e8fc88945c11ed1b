/**
 * Who is speaking, read from what the tiles show (page level, real Chromium against the
 * simulators): the page script reports each tile's look, and a SpeakerLearner fed those looks and
 * the times the simulator spoke learns which look means "speaking" and names each utterance's
 * speaker. Each platform's builds draw the indicator their own way (the pages' `speakingMark`:
 * Meet's outline class, a leaf's border, the equalizer icon, moving level bars, a glow; Teams'
 * voice-level ring, a ::before border, its tile label, a class; Zoom's active video frame, an
 * outlined panel entry, or both), none of them an attribute that says who speaks: a page per way,
 * side by side, each in its own meeting. The bot's own tile is never among the looks.
 * SIM_SEED=<seed> replays one page load.
 */
import { expect } from 'chai';
import {
  choiceOf,
  MEET_CHOICES,
  seedWithChoice,
  TEAMS_CHOICES,
  ZOOM_CHOICES,
  type SimPlatform,
  type Utterance,
} from '../../../../test/simulators/index.js';
import { actions } from '../../src/drivers/page-actions.js';
import { looksOf, peopleOf } from '../../src/drivers/tile-readings.js';
import { SpeakerLearner } from '../../src/transcription/speaker-learner.js';
import { UNKNOWN_SPEAKER } from '../../src/transcription/speaker-timeline.js';
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
import { sleep } from '../../../../test/support/wait.js';

const ALICE = 'Alice Example';
const BOB = 'Bob Jones';
/** About the driver's own poll (250 ms), a little faster: the learner samples the looks in between. */
const READ_EVERY_MS = 150;
const QUIET_MS = 1_500;

const CHOICES: Record<SimPlatform, readonly string[]> = {
  google_meet: MEET_CHOICES.speakingMark,
  teams: TEAMS_CHOICES.speakingMark,
  zoom: ZOOM_CHOICES.speakingMark,
};

/** One page load in its own meeting, its looks fed to a learner: its seed and indicator name it in every failure. */
class Variant extends SeededPage {
  readonly learner = new SpeakerLearner();
  private reading = true;
  private done: Promise<void> = Promise.resolve();

  override get label(): string {
    return `${choiceOf(this.platform, this.seed, 'speakingMark')}: ${super.label}`;
  }

  /** Reads the tiles' looks until stop(), as the driver does, into the learner. */
  read(): void {
    this.done = (async () => {
      while (this.reading) {
        const { participants, readAt } = await this.call.inspect();
        expect(participants, this.label).to.not.equal(null);
        expect(peopleOf(participants!, DISPLAY_NAME).sort(), this.label).to.deep.equal([ALICE, BOB]);
        const looks = looksOf(participants!, DISPLAY_NAME);
        expect(
          looks.every((tile) => tile.name !== DISPLAY_NAME),
          `${this.label}: the bot's tile`,
        ).to.equal(true);
        this.learner.looks(looks, readAt);
        await sleep(READ_EVERY_MS);
      }
    })();
  }

  async stop(): Promise<void> {
    this.reading = false;
    await this.done;
  }

  /** `name` says `text`; the learner hears it on `track` (the window the simulator played it in). */
  async say(name: string, text: string, track: string, options: { unseen?: boolean } = {}): Promise<Utterance> {
    const u = await this.meeting.say(name, text, options);
    this.learner.heard({ track, speechFromMs: u.startedAt, speechToMs: u.startedAt + u.durationMs, ended: true });
    return u;
  }

  speakerOf(u: Utterance, track: string): string {
    return this.learner.speakerOf(track, u.startedAt, u.startedAt + u.durationMs);
  }
}

describe('who is speaking, learned from how the tiles look (page level, each way of drawing it)', function () {
  // About 20 s a platform; more on a machine busy with other work.
  this.timeout(120_000);
  skipWithoutEspeak();
  const suite = pagesOnSimulator();

  for (const platform of ['google_meet', 'teams', 'zoom'] as const) {
    const name = { google_meet: 'Meet', teams: 'Teams', zoom: 'Zoom' }[platform];

    it(`${name}: each speaker named by the look their tile takes while they speak; speech no tile shows, Unknown`, async () => {
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
          variants.map(async (v) => {
            v.call = await enterCall(v.page, platform, suite.sim, v.meeting.id);
            if (platform === 'zoom') await openZoomPanels(v);
          }),
        );
        await Promise.all(variants.map((v) => converse(v, platform === 'google_meet')));
      });
    });
  }
});

/** Zoom's call steps until nothing is left to open (the participants panel first). */
async function openZoomPanels(v: Variant): Promise<void> {
  for (let step = 0; step < 20; step++) {
    if ((await v.call.adapter.run(v.call.page, actions.captionsStep)) === 'none') return;
    await sleep(30);
  }
  throw new Error(`${v.label}: the Zoom panels did not open in 20 steps`);
}

/**
 * Alice, Bob, Alice again, with quiet between, then Bob unseen (no tile lights): each named
 * right, the last Unknown. Meet hears each on a track of their own, Teams and Zoom on one mix.
 */
async function converse(v: Variant, trackEach: boolean): Promise<void> {
  const track = (name: string) => (trackEach ? name : 'mix');
  v.read();
  try {
    await sleep(QUIET_MS);
    const first = await v.say(ALICE, 'We should ship the new release on Friday.', track(ALICE));
    await sleep(QUIET_MS);
    const second = await v.say(BOB, 'I think we need one more day of testing.', track(BOB));
    await sleep(QUIET_MS);
    const third = await v.say(ALICE, 'Then Monday it is, with the fixes in.', track(ALICE));
    await sleep(QUIET_MS);
    const unseen = await v.say(BOB, 'Sounds good to me.', track(BOB), { unseen: true });
    await sleep(QUIET_MS);
    v.learner.audio(Date.now());
    expect(v.learner.signs().size, `${v.label}: a look learned to mean speaking`).to.be.greaterThan(0);
    const heard = [first, second, third, unseen].map((u) => v.speakerOf(u, track(u.speaker)));
    expect(heard, v.label).to.deep.equal([ALICE, BOB, ALICE, UNKNOWN_SPEAKER]);
  } finally {
    await v.stop();
  }
}

describe('looksOf: every tile but the bot’s', () => {
  const look = (name: string) => ({ name, look: ['tile:c:x'] });

  it('keeps what the page read when it told the bot tile apart, and keys two tiles of one name apart', () => {
    const reading = { names: [ALICE], selfFound: true, looks: [look(ALICE), look(ALICE)] };
    expect(looksOf(reading, DISPLAY_NAME).map((t) => t.key)).to.deep.equal([`${ALICE}#0`, `${ALICE}#1`]);
  });

  it("drops the bot's name when its unmarked tile is among the tiles, spacing and case aside", () => {
    const reading = { names: [ALICE, 'notetaker '], selfFound: false, looks: [look(ALICE), look('notetaker ')] };
    expect(looksOf(reading, DISPLAY_NAME).map((t) => t.name)).to.deep.equal([ALICE]);
  });

  it('drops a bare-named bot tile (Zoom video) even when the list told the bot apart', () => {
    const reading = { names: [ALICE], selfFound: true, looks: [look(ALICE), look(DISPLAY_NAME)] };
    expect(looksOf(reading, DISPLAY_NAME).map((t) => t.name)).to.deep.equal([ALICE]);
  });

  it('keeps a person named like the bot (two such tiles: the bot is muted, its own never lights)', () => {
    const reading = { names: [DISPLAY_NAME, DISPLAY_NAME], selfFound: false, looks: [look(DISPLAY_NAME)] };
    expect(looksOf(reading, DISPLAY_NAME).map((t) => t.name)).to.deep.equal([DISPLAY_NAME]);
  });
});
