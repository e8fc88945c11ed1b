/**
 * Captions turned off by the host (Meet) or the organizer (Teams) in the middle of a meeting, on
 * both platforms and both ways a build shows it (the pages' `captionsRefused`: the captions control
 * disabled with the platform's note, or gone), in real Chromium against the simulators:
 * - page level: the reading says captions are off and holds no caption text while people go on
 *   speaking, and the platform's ways of turning them on do nothing; allowed again, the driver's
 *   own steps turn them back on and what is said next is read;
 * - the real driver: `captions_unavailable` raised once captions have been off for
 *   CAPTION_BLIND_AFTER_MS (short here) and cleared once they are back on; nothing said while they
 *   were off becomes a segment, and what is said after is one.
 * SIM_SEED=<seed> replays one page load.
 */
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import {
  choiceOf,
  describeMarkup,
  seedWithChoice,
  type SimMeeting,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import type { PageState } from '../../src/drivers/page-readings.js';
import { ActionMemo } from '../../src/drivers/platform.js';
import {
  DISPLAY_NAME,
  enterCall,
  pagesOnSimulator,
  seededMeetingId,
  seedPerVariant,
  withPages,
  type CallPage,
  type CaptionItem,
} from './call-page.js';
import {
  driversOnSimulator,
  expectMatchesTruth,
  joinSimulated,
  skipWithoutEspeak,
  type RecordingListener,
} from './helpers.js';
import { eventually, sleep } from '../../../../test/support/wait.js';

const ALICE = 'Alice Example';
const BLIND_AFTER_MS = 1_500;
const WAYS = ['disabled', 'absent'] as const;
const PLATFORMS = [
  ['google_meet', 'Meet'],
  ['teams', 'Teams'],
] as const;

/** A seed per way of showing captions refused (only SIM_SEED's when replaying). */
const seedsOf = (platform: SimPlatform) =>
  seedPerVariant(WAYS, (way, from) => seedWithChoice(platform, 'captionsRefused', way, from));

const textOf = (state: PageState<CaptionItem>) => (state.captions ?? []).map((item) => item.text).join(' ');

/**
 * How the page shows the captions control now: Meet's captions button, Teams' captions item of
 * the More menu (opened for the look, then closed), enabled, disabled, or absent.
 */
async function captionsControl(page: Page, platform: SimPlatform): Promise<'enabled' | 'disabled' | 'absent'> {
  // Page source as text: tsx names functions with a helper the page lacks (see page-scripts/source.ts).
  return page.evaluate(`(async () => {
    const state = (el) => !el ? 'absent' : el.matches(':disabled, [aria-disabled="true"]') ? 'disabled' : 'enabled';
    if (${JSON.stringify(platform)} === 'google_meet') return state(document.querySelector('button[aria-label$=" captions"]'));
    document.body.click();
    document.querySelector('button[aria-label="More"]').click();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const items = [...document.querySelectorAll('[role="menuitem"]')];
    const found = state(items.find((item) => /^captions$/i.test(item.textContent.trim())) || null);
    document.body.click();
    return found;
  })()`) as Promise<'enabled' | 'disabled' | 'absent'>;
}

/**
 * The platform's in-call steps (PlatformAdapter.tendCall: its captions control, its menus, its
 * shortcut), taken for `ms` or until `done` holds of a reading; the last reading. The actions'
 * clock runs ahead, as in call-page.ts, so repeated steps are not held back by their spacing.
 */
async function tend(
  call: CallPage,
  ms: number,
  done: (state: PageState<CaptionItem>) => boolean = () => false,
): Promise<PageState<CaptionItem>> {
  const memo = new ActionMemo();
  let ahead = 0;
  let state = await call.inspect();
  for (const deadline = Date.now() + ms; !done(state) && Date.now() < deadline; state = await call.inspect()) {
    ahead += 400;
    await call.adapter.tendCall({ page: call.page, state, displayName: DISPLAY_NAME, memo, now: Date.now() + ahead });
    await sleep(20);
  }
  return state;
}

describe('captions turned off by the host, mid-meeting', function () {
  this.timeout(90_000);
  skipWithoutEspeak();
  const suite = driversOnSimulator({
    captionBlindAfterMs: BLIND_AFTER_MS,
    meetCaptionIdleMs: 600,
    teamsCaptionIdleMs: 600,
  });
  const pageSuite = pagesOnSimulator(suite);

  for (const [platform, name] of PLATFORMS) {
    it(`${name} page: no captions and no way to turn them on while refused; the driver's steps turn them on again`, async () => {
      const seeds = seedsOf(platform);
      await withPages(pageSuite.browser, seeds.length, (pages) =>
        Promise.all(seeds.map((seed, i) => refusedOnPage(platform, seed, pages[i]))),
      );
    });

    it(`${name} driver: captions_unavailable after CAPTION_BLIND_AFTER_MS refused, cleared once they are back`, async () => {
      await Promise.all(seedsOf(platform).map((seed) => refusedThenAllowed(platform, seed)));
    });
  }

  it('both platforms: a meeting created with captions refused is blind from the start, until the host allows them', async () => {
    await Promise.all(
      PLATFORMS.map(async ([platform]) => {
        const seed = seedsOf(platform)[0];
        const label = describeMarkup(platform, seed);
        const id = seededMeetingId(platform, seed, 'createdoff');
        const meeting = suite.sim.meeting(id, { lobby: false, markupSeed: seed, captionsAllowed: false });
        meeting.join(ALICE);
        const { listener, driver } = await joinSimulated(suite, platform, id, { meetingId: `meeting_created_${seed}` });
        try {
          await listener.until(() => listener.events.includes('admitted'), `${label}: admitted`);
          await listener.until(
            () => listener.events.includes('warning:captions_unavailable:raised'),
            `${label}: captions_unavailable raised`,
          );
          expect(meeting.truth().bots[0].captionsOn, label).to.equal(false);
          meeting.setCaptionsAllowed(true);
          await listener.until(
            () => listener.events.includes('warning:captions_unavailable:cleared'),
            `${label}: captions_unavailable cleared`,
          );
          await meeting.waitForBot((bot) => bot.captionsOn);
        } finally {
          await driver.leave();
        }
      }),
    );
  });

  /** A page's reading while the host refuses captions, and the driver's own steps once allowed again. */
  async function refusedOnPage(platform: SimPlatform, seed: number, page: Page): Promise<void> {
    const label = describeMarkup(platform, seed);
    const meeting = suite.sim.meeting(seededMeetingId(platform, seed, 'pageoff'), { lobby: false, markupSeed: seed });
    meeting.join(ALICE);
    const call = await enterCall(page, platform, suite.sim, meeting.id);
    await meeting.say(ALICE, 'Good morning everyone.');
    await eventually(async () => textOf(await call.inspect()) === 'Good morning everyone.', `${label}: captions read`);

    meeting.setCaptionsAllowed(false);
    const off = await eventually(async () => {
      const state = await call.inspect();
      return !state.captionsOn && state.captions === null && state;
    }, `${label}: captions off and their area gone`);
    expect(off.screen, label).to.equal('in_call');
    expect((await meeting.waitForBot((bot) => !bot.captionsOn)).captionsOn, label).to.equal(false);

    // Speech goes on, uncaptioned; the platform's ways of turning captions on do nothing.
    const uncaptioned = meeting.say(ALICE, 'Nobody can read this sentence.');
    const tended = await tend(call, 3_000);
    expect(tended.captionsOn, `${label}: captions stay off`).to.equal(false);
    expect(tended.captions, label).to.equal(null);
    const said = await uncaptioned;
    expect(said.captionBlockId, `${label}: no captions made`).to.equal(null);
    expect(JSON.stringify(call.reports), `${label}: nothing reported`).to.not.contain('Nobody');
    const way = choiceOf(platform, seed, 'captionsRefused');
    expect(await captionsControl(call.page, platform), `${label}: the control while refused`).to.equal(way);

    meeting.setCaptionsAllowed(true);
    const on = await tend(call, 10_000, (state) => state.captionsOn);
    expect(on.captionsOn, `${label}: captions back on by the driver's own steps`).to.equal(true);
    await meeting.waitForBot((bot) => bot.captionsOn);
    await meeting.say(ALICE, 'Captions are back.');
    await eventually(async () => textOf(await call.inspect()) === 'Captions are back.', `${label}: new captions read`);
    if (platform === 'google_meet') expect(await captionsControl(call.page, platform), label).to.equal('enabled');
  }

  async function refusedThenAllowed(platform: SimPlatform, seed: number): Promise<void> {
    const label = describeMarkup(platform, seed);
    const id = seededMeetingId(platform, seed, 'driveroff');
    const meeting: SimMeeting = suite.sim.meeting(id, { lobby: false, markupSeed: seed });
    meeting.join(ALICE);
    const { listener, driver } = await joinSimulated(suite, platform, id, { meetingId: `meeting_off_${seed}` });
    try {
      const until = (test: (l: RecordingListener) => boolean, what: string, ms = 15_000) =>
        listener.until(() => test(listener), `${label}: ${what}`, ms);
      await meeting.waitForBot((bot) => bot.captionsOn);
      await meeting.say(ALICE, 'Good morning everyone.');
      await until((l) => l.segments.length === 1, 'the first segment');

      meeting.setCaptionsAllowed(false);
      const refusedAt = Date.now();
      await meeting.waitForBot((bot) => !bot.captionsOn);
      await meeting.say(ALICE, 'Nobody can read this sentence.');
      await until((l) => l.events.includes('warning:captions_unavailable:raised'), 'captions_unavailable raised');
      expect(Date.now() - refusedAt, `${label}: not before CAPTION_BLIND_AFTER_MS`).to.be.at.least(BLIND_AFTER_MS);
      const raised = listener.warnings.find((w) => w.warning === 'captions_unavailable' && w.raised);
      expect(raised && 'seen' in raised ? raised.seen : '', label).to.match(/captions could not be turned on/);

      meeting.setCaptionsAllowed(true);
      await until((l) => l.events.includes('warning:captions_unavailable:cleared'), 'captions_unavailable cleared');
      await meeting.waitForBot((bot) => bot.captionsOn);
      await meeting.say(ALICE, 'Captions are back.');
      await until((l) => l.segments.length === 2, 'the segment after captions came back');

      expect(
        listener.segments.map((s) => s.text),
        label,
      ).to.deep.equal(['Good morning everyone.', 'Captions are back.']);
      expectMatchesTruth(listener, meeting.truth());
      expect(
        listener.events.filter((e) => e.startsWith('warning:')),
        label,
      ).to.deep.equal(['warning:captions_unavailable:raised', 'warning:captions_unavailable:cleared']);
    } finally {
      await driver.leave();
    }
  }
});
