/**
 * The room as it is: the real drivers in real Chromium against the simulator, once for every way
 * a page load can mark the bot's own tile (Meet: data-self-name inside the tile or on it, "You",
 * "<name> (You)"; Teams: "<name> (You)", "<name> (Guest) (You)", "You", the bot's name alone). On
 * each, the bot is never a participant and the count leaves it out; people's names lose the
 * platform's labels ("(Guest)", "(External)", "(Unverified)" on Teams, also as caption authors;
 * Meet's presentation tile is its presenter, not one more person).
 *
 * Each test takes a seed that draws its way of marking (from a random start, so the wrappers vary
 * too); titles and messages name the seed, and SIM_SEED=<seed> replays the markup of one.
 */
import { expect } from 'chai';
import {
  describeMarkup,
  growWords,
  MEET_CHOICES,
  seedWithSelfTile,
  TEAMS_CHOICES,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import { driversOnSimulator, RecordingListener } from './helpers.js';

const BOT = 'Notetaker';
const WAYS: Record<Exclude<SimPlatform, 'zoom'>, readonly string[]> = {
  google_meet: MEET_CHOICES.selfTile,
  teams: TEAMS_CHOICES.selfTile,
};

/** Names in any roster reported that are the bot or carry a platform's label. */
const notPeople = (listener: RecordingListener) =>
  listener.rosters.flat().filter((name) => name === BOT || /\byou\b|\(/i.test(name));

describe('the bot never counts itself; names without the platforms labels (real Chromium)', function () {
  this.timeout(60_000);
  const suite = driversOnSimulator({ meetCaptionIdleMs: 1_000 });
  let meetings = 0;

  /** A meeting id of the platform's own form, new for each test. */
  function newMeetingId(platform: SimPlatform): string {
    const n = meetings++;
    if (platform === 'teams') return `19:meeting_selftile${n}@thread.v2`;
    return `slf-${'abcdefghijklmnopqrstuvwxyz'[n % 26]}${'abcdefghijklmnopqrstuvwxyz'[Math.floor(n / 26) % 26]}ti-lee`;
  }

  async function join(platform: SimPlatform, way: string) {
    const seed = seedWithSelfTile(platform, way, Math.floor(Math.random() * 0xffffffff));
    const id = newMeetingId(platform);
    const meeting = suite.sim.meeting(id, { lobby: false, markupSeed: seed });
    const listener = new RecordingListener();
    const driver = suite.factory.create({
      platform,
      url: suite.sim.url(platform, id),
      meetingId: `meeting_${id}`,
      displayName: BOT,
    });
    return { seed, meeting, listener, driver, where: describeMarkup(platform, seed) };
  }

  describe('Google Meet', () => {
    for (const way of WAYS.google_meet) {
      it(`self tile "${way}": the bot is no participant, a presenter is one person`, async () => {
        const { meeting, listener, driver, where } = await join('google_meet', way);
        meeting.join('Ann Lee');
        meeting.join('Ben Ode');
        try {
          await driver.start(listener);
          await listener.until(() => listener.roster?.join() === 'Ann Lee,Ben Ode', `${where}: the two people`);
          expect(
            meeting.truth().pageLoads.map((load) => load.selfTile),
            where,
          ).to.deep.equal([way]);
          // Presenting adds "Ann Lee (Presentation)"; Cy joins after it, so once Cy is read so is it.
          meeting.present('Ann Lee');
          meeting.join('Cy Park');
          await listener.until(
            () => listener.roster?.join() === 'Ann Lee,Ben Ode,Cy Park',
            `${where}: Cy, and Ann once`,
          );
          meeting.present('Ann Lee', false);
          meeting.leave('Ben Ode');
          await listener.until(() => listener.roster?.join() === 'Ann Lee,Cy Park', `${where}: Ben gone`);
          expect(notPeople(listener), `${where}: never the bot, never a label`).to.deep.equal([]);
        } finally {
          await driver.leave();
        }
      });
    }
  });

  describe('Microsoft Teams', () => {
    for (const way of WAYS.teams) {
      it(`self tile "${way}": the bot is no participant; (Guest), (External), (Unverified) are dropped`, async () => {
        const { meeting, listener, driver, where } = await join('teams', way);
        meeting.join('Ann Lee', { suffix: 'Guest' });
        meeting.join('Ben Ode', { suffix: 'External' });
        meeting.join('Cy Park', { suffix: 'Unverified' });
        meeting.join('Dee Ray');
        try {
          await driver.start(listener);
          await listener.until(
            () => listener.roster?.join() === 'Ann Lee,Ben Ode,Cy Park,Dee Ray',
            `${where}: four people, by their names`,
          );
          expect(
            meeting.truth().pageLoads.map((load) => load.selfTile),
            where,
          ).to.deep.equal([way]);
          meeting.leave('Ben Ode');
          await listener.until(() => listener.roster?.join() === 'Ann Lee,Cy Park,Dee Ray', `${where}: Ben gone`);
          expect(notPeople(listener), `${where}: never the bot, never a label`).to.deep.equal([]);

          // A guest's caption rows are authored "Ann Lee (Guest)": the segment is Ann Lee's.
          await meeting.waitForBot((bot) => bot.captionsOn);
          await meeting.speak('Ann Lee', growWords('Hello from a guest.'));
          await listener.until(() => listener.segments.length === 1, `${where}: Ann's turn finalised`);
          expect(listener.segments.map(({ speaker, text }) => ({ speaker, text }))).to.deep.equal([
            { speaker: 'Ann Lee', text: 'Hello from a guest.' },
          ]);
          expect(new Set(listener.captions.map((c) => c.speaker))).to.deep.equal(new Set(['Ann Lee']));
        } finally {
          await driver.leave();
        }
      });
    }
  });
});
