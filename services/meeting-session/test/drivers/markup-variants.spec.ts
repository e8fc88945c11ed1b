/**
 * The page scripts against drifting markup, page by page: for each seed the simulator draws 0-3
 * wrapper elements at every level (caption region, list, block, header, avatar, name, text; tiles;
 * controls), new class names and the way the bot's own tile is marked; the page script must
 * recognise every screen on the way in, the participants (never the bot, names without Teams'
 * "(Guest)"-like labels, Meet's presentation tile as its presenter), and after every caption
 * change read exactly the blocks on screen. The readings it
 * reported, fed through the platform's caption tracker, must give the ground truth's segments.
 * One browser for all seeds; a page per seed. SIM_SEED=<seed> replays one seed.
 */
import { expect } from 'chai';
import {
  correctedTurn,
  describeMarkup,
  growWords,
  joinChoicesOf,
  seedWithChoice,
  variantSeeds,
  zoomChoicesOf,
  type SimMeeting,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import type { FinalSegment } from '../../src/drivers/index.js';
import { peopleOf } from '../../src/drivers/tile-readings.js';
import {
  DISPLAY_NAME,
  enterCall,
  pagesOnSimulator,
  seededMeetingId,
  seedPerVariant,
  withPages,
  type CallPage,
} from './call-page.js';
import { actions } from '../../src/drivers/page-actions.js';
import { eventually, sleep } from '../../../../test/support/wait.js';

const SEEDS_PER_PLATFORM = 50;

const SCREENS: Record<SimPlatform, string[]> = {
  google_meet: ['prejoin', 'lobby', 'in_call'],
  teams: ['launcher', 'prejoin', 'lobby', 'in_call'],
  // The launch page, the web client's pre-join, the waiting room.
  zoom: ['launcher', 'prejoin', 'lobby', 'in_call'],
};

/** The screens a seed's page loads go through: Zoom's launch page sends some loads straight on (its `redirect`). */
function screensOf(platform: SimPlatform, seed: number): string[] {
  const sentOn =
    platform === 'zoom' && zoomChoicesOf(seed).redirect !== 'none' && zoomChoicesOf(seed).redirect !== 'classic';
  return sentOn ? SCREENS.zoom.filter((screen) => screen !== 'launcher') : SCREENS[platform];
}

const PLATFORM_LABELS: Record<SimPlatform, string> = {
  google_meet: 'Google Meet',
  teams: 'Microsoft Teams',
  zoom: 'Zoom',
};

const speakerAndText = (items: Array<{ speaker: string; text: string }>) =>
  items.map(({ speaker, text }) => ({ speaker, text }));

/** One seed's run: every wait names the seed and its markup when it gives up. */
class Variant {
  constructor(
    readonly platform: SimPlatform,
    readonly seed: number,
    readonly meeting: SimMeeting,
    readonly call: CallPage,
  ) {}

  get label(): string {
    return describeMarkup(this.platform, this.seed);
  }

  async until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 3_000) {
    const { value } = await eventually(
      async () => {
        const value = await read();
        // The last reading is the failure's message.
        if (!done(value)) throw new Error(`last read ${JSON.stringify(value)}`);
        return { value };
      },
      `${this.label}: ${what}`,
      timeoutMs,
    );
    return value;
  }

  /** Shows a step of a caption turn, then waits for the page's reading of exactly what is on screen. */
  async show(step: () => void): Promise<void> {
    step();
    const expected = JSON.stringify(this.meeting.captionsOnScreen(this.platform));
    await this.until(
      () => JSON.stringify(speakerAndText(this.call.reports.at(-1) ?? [])),
      (read) => read === expected,
      `the captions read are not those on screen, ${expected}`,
    );
  }

  /** The people the driver reports from the page's reading of the tiles: never the bot. */
  async participants(expected: string[]): Promise<void> {
    const want = JSON.stringify([...expected].sort());
    await this.until(
      async () => {
        const found = (await this.call.inspect()).participants;
        return JSON.stringify(found && peopleOf(found, DISPLAY_NAME).sort());
      },
      (read) => read === want,
      `the participants read are not ${want}`,
    );
  }

  /** A conversation with corrections, a long turn (trimmed by Meet), a shrink and a split turn. */
  async converse(): Promise<void> {
    const alice = this.meeting.caption('Alice Example');
    for (const step of correctedTurn()) await this.show(() => alice.show(step));
    const bob = this.meeting.caption('Bob Jones');
    for (const step of [
      ...growWords('we need more time for testing because the simulator keeps finding real problems in the caption'),
      'we need more time for testing because the simulator keeps finding real problems in the captions.',
    ])
      await this.show(() => bob.show(step));
    const first = this.meeting.caption('Carol White');
    for (const step of growWords('one more thing before we go and then')) await this.show(() => first.show(step));
    let second = first;
    await this.show(() => (second = first.split(1)));
    for (const step of growWords('we are done.', 'then')) await this.show(() => second.show(step));
  }

  /** The page's readings through the platform's own caption tracker, in the order reported. */
  segments(): Array<{ speaker: string; text: string }> {
    const segments: FinalSegment[] = [];
    let turns = 0;
    const tracker = this.call.adapter.createTracker(
      { partial: () => {}, final: (segment) => segments.push(segment), newId: () => `turn_${++turns}` },
      { meetCaptionIdleMs: 60_000, teamsCaptionIdleMs: 60_000, zoomCaptionIdleMs: 60_000 },
    );
    this.call.reports.forEach((items, i) => tracker.update(items, i));
    tracker.flush();
    return speakerAndText(segments);
  }
}

/** Zoom's call steps taken until nothing is left to open: the participants panel, captions, the full transcript. */
async function openZoomPanels(call: CallPage): Promise<void> {
  for (let step = 0; step < 20; step++) {
    if ((await call.adapter.run(call.page, actions.captionsStep)) === 'none') return;
    await sleep(30);
  }
  throw new Error('the Zoom panels did not open in 20 steps');
}

/** The bot got in under its own name, microphone and camera off, and did not leave on the way. */
function expectJoinedAsBot(meeting: SimMeeting, label: string): void {
  const bots = meeting.truth().bots;
  expect(bots, `${label}: one bot`).to.have.length(1);
  expect(bots[0], `${label}: the bot as it joined`).to.include({
    name: DISPLAY_NAME,
    micOn: false,
    camOn: false,
    leftVia: null,
  });
}

/*
 * Every way the field notes record of Meet's and Teams' join flows (the name field, the join
 * button's words and element, launchers, the light-meetings page, pop-ups before and after the
 * join click, the audio options, the lobby's words), one page load each: joined by name, muted,
 * past every pop-up without leaving, through the lobby into the call.
 */
describe('join flows as the field notes record them (page level, one page per way)', function () {
  this.timeout(60_000);
  const suite = pagesOnSimulator();

  for (const platform of ['google_meet', 'teams'] as const) {
    Object.entries(joinChoicesOf(platform)).forEach(([choice, ways], c) => {
      it(`${PLATFORM_LABELS[platform]}: every ${choice} (${ways.join(', ')}) joined`, async () => {
        const seeds = seedPerVariant(ways, (way, from) => seedWithChoice(platform, choice, way, from));
        await withPages(suite.browser, seeds.length, (pages) =>
          Promise.all(
            seeds.map(async (seed, i) => {
              const id = seededMeetingId(platform, seed, `j${'abcdefghij'[c]}${'abcdefghij'[i]}`);
              const meeting = suite.sim.meeting(id, { lobby: true, markupSeed: seed });
              const screens: string[] = [];
              const label = describeMarkup(platform, seed);
              await enterCall(pages[i], platform, suite.sim, id, screens, 15_000).catch((error: Error) => {
                throw new Error(`${label}: ${error.message}`);
              });
              expect(screens, `${label}: screens`).to.include.members(['prejoin', 'lobby', 'in_call']);
              expectJoinedAsBot(meeting, label);
            }),
          ),
        );
      });
    });
  }
});

describe('page scripts on drifting markup (page level, seeded variants)', function () {
  this.timeout(20_000);
  const suite = pagesOnSimulator();

  for (const platform of ['google_meet', 'teams', 'zoom'] as const) {
    describe(PLATFORM_LABELS[platform], () => {
      for (const seed of variantSeeds(SEEDS_PER_PLATFORM)) {
        it(`seed ${seed}: screens, participants and every caption change read as shown; segments = truth`, async () => {
          const id = seededMeetingId(platform, seed, 'variant');
          const meeting = suite.sim.meeting(id, {
            lobby: true,
            markupSeed: seed,
            // Meet trims long turns from the start; Teams never does.
            headDropWords: platform === 'google_meet' ? 12 : 0,
          });
          // Teams labels guests and people of other organisations, also as caption authors.
          meeting.join('Alice Example', { suffix: 'Guest' });
          meeting.join('Bob Jones', { suffix: 'External' });
          const page = await suite.browser.newPage();
          try {
            const screens: string[] = [];
            const call = await enterCall(page, platform, suite.sim, id, screens);
            // Zoom: the participants panel and the full transcript (the speakers' names) open after captions.
            if (platform === 'zoom') await openZoomPanels(call);
            const variant = new Variant(platform, seed, meeting, call);
            // A moment unknown between two readings of one screen (a form drawn late) is still that one screen,
            // and a page's half-drawn moment (a lone "Sign in", no-access words) before it shows its screen is
            // no screen at all: the driver acts on a terminal screen only when it is seen twice (terminal-watch.ts).
            const known = screens.filter(
              (screen, i) => screen !== 'unknown' && (screen !== 'terminal' || i === screens.length - 1),
            );
            const seen = known.filter((screen, i) => screen !== known[i - 1]);
            expect(seen, `${variant.label}: screens`).to.deep.equal(screensOf(platform, seed));
            expect(meeting.truth().pageLoads.map((load) => load.markupSeed)).to.deep.equal([seed]);
            expectJoinedAsBot(meeting, variant.label);

            await variant.participants(['Alice Example', 'Bob Jones']);
            // Meet adds "Alice Example (Presentation)"; read with Carol, who joins after it.
            meeting.present('Alice Example');
            meeting.leave('Bob Jones');
            meeting.join('Carol White', { suffix: 'Unverified' });
            await variant.participants(['Alice Example', 'Carol White']);

            await variant.converse();
            const truth = speakerAndText(meeting.truth().segments);
            expect(variant.segments(), `${variant.label}: segments vs ground truth`).to.deep.equal(truth);

            meeting.end();
            await variant.until(
              () => call.inspect(),
              (state) => state.screen === 'terminal',
              'the end screen is not recognised',
            );
            expect((await call.inspect()).outcome, `${variant.label}: end screen`).to.equal('meeting_ended');
          } finally {
            await page.close();
          }
        });
      }
    });
  }
});
