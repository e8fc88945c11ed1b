import { expect } from 'chai';
import {
  joinChoicesOf,
  lightLaunchesOf,
  seedWithChoice,
  seedWithChoices,
  waysOf,
} from '../../../../test/simulators/index.js';
import { comeAndGo, driversOnSimulator, expectRemovedAndEnded, expectTurnsRead, joinSimulated } from './helpers.js';

/** Microsoft Teams in real Chromium, against the simulator on teams.microsoft.com and teams.live.com. */
describe('Teams driver', function () {
  this.timeout(40_000);
  const suite = driversOnSimulator({ teamsCaptionIdleMs: 800 });
  let meetings = 0;

  const newThread = () => `19:meeting_SimTest${++meetings}Zq@thread.v2`;

  const join = (id: string, displayName = 'Notetaker') =>
    joinSimulated(suite, 'teams', id, { meetingId: `meeting_t${meetings}`, displayName });

  it('continues in the browser, joins muted with the camera off, waits in the lobby, and is admitted', async () => {
    const id = newThread();
    const meeting = suite.sim.meeting(id, {
      noMediaDialog: true,
      teamsLobbyWord: 'shortly',
      teamsCaptionsMenu: 'language',
      // The lobby's best-known wording, where the word is said (the others have none).
      markupSeed: seedWithChoice('teams', 'lobbyWording', 'letYouIn', 300),
    });
    const { listener, driver } = await join(id, 'Minutes Bot');
    await listener.until(() => listener.events.includes('lobby'), 'lobby');
    expect(listener.events).to.deep.equal(['lobby'], 'the hang-up button in the lobby is not the call');
    meeting.admit();
    await listener.until(() => listener.events.includes('admitted'), 'admitted');
    const bot = await meeting.waitForBot((b) => b.captionsOn);
    expect(bot).to.include({ name: 'Minutes Bot', micOn: false, camOn: false });
    expect(meeting.truth().pageLoads[0].acceptLanguage).to.match(/^en-US/);
    await driver.leave();
    expect(meeting.truth().bots[0].leftVia).to.equal('leave_button');
  });

  for (const choice of ['launcher', 'app', 'deviceModal', 'nameField']) {
    it(`joins by name and muted on every ${choice} (${joinChoicesOf('teams')[choice].join(', ')})`, async () => {
      const ways = joinChoicesOf('teams')[choice];
      const joined = await Promise.all(
        ways.map(async (way, i) => {
          const id = newThread();
          const markupSeed = seedWithChoice('teams', choice, way, 700 + meetings * 29 + i);
          const meeting = suite.sim.meeting(id, { lobby: false, markupSeed });
          return { way, meeting, ...(await join(id)) };
        }),
      );
      for (const { way, meeting, listener } of joined) {
        await listener.until(() => listener.events.includes('admitted'), `${way}: admitted`);
        const bot = await meeting.waitForBot((b) => b.captionsOn);
        expect(bot, way).to.include({ name: 'Notetaker', micOn: false, camOn: false, leftVia: null });
        expect(listener.warnings, `${way}: known screens`).to.deep.equal([]);
        expect(meeting.truth().pageLoads, `${way}: one page load`).to.have.length(1);
      }
      await Promise.all(joined.map(({ driver }) => driver.leave()));
    });
  }

  it('past the light-meetings page sending the browser to lightExperience=false: the link opened again, joined', async () => {
    const id = newThread();
    const markupSeed = seedWithChoices('teams', { app: 'light', lightRedirect: 'once' }, 1200 + meetings * 17);
    const meeting = suite.sim.meeting(id, { lobby: false, markupSeed });
    const { listener, driver } = await join(id);
    await listener.until(() => listener.events.includes('admitted'), 'admitted', 30_000);
    expect(lightLaunchesOf(meeting), 'the first light-meetings page sent on, the second went in').to.equal(2);
    expect(meeting.truth().bots.map((b) => b.name)).to.deep.equal(['Notetaker']);
    expect(listener.warnings, 'no screen it was stuck on').to.deep.equal([]);
    await driver.leave();
  });

  it('a CAPTCHA before the pre-join or after the Join click: bot_detected within 10 s, once, with the page as it was', async () => {
    const runs = await Promise.all(
      waysOf('teams', 'captcha').map(async (way, i) => {
        const id = newThread();
        const markupSeed = seedWithChoice('teams', 'captcha', way, 1500 + meetings * 13 + i);
        const meeting = suite.sim.meeting(id, { lobby: false, botWall: true, markupSeed });
        const started = Date.now();
        const joined = await join(id);
        await joined.listener.until(() => joined.listener.failedWith !== null, `${way}: a failure`, 20_000);
        return { way, meeting, took: Date.now() - started, ...joined };
      }),
    );
    for (const { way, meeting, took, listener, driver } of runs) {
      expect(listener.events, way).to.deep.equal(['failed:bot_detected']);
      expect(took, `${way}: ms to the failure`).to.be.below(10_000);
      const evidence = listener.failedEvidence;
      expect(
        evidence?.snapshot.map((node) => node.tag),
        `${way}: the page's structure`,
      ).to.include('iframe');
      expect(JSON.stringify(evidence?.snapshot), `${way}: no words`).not.to.match(/real person|puzzle/i);
      expect(
        Buffer.from(evidence?.screenshot ?? [])
          .subarray(1, 4)
          .toString(),
        `${way}: a PNG`,
      ).to.equal('PNG');
      expect(meeting.truth().bots, `${way}: never got in`).to.deep.equal([]);
      await driver.leave();
    }
  });

  it('an end-to-end encrypted call ("An encryption error occurred"), on admission or in the call: join_failed', async () => {
    const runs = await Promise.all(
      waysOf('teams', 'e2eeEnd').map(async (way, i) => {
        const id = newThread();
        const markupSeed = seedWithChoice('teams', 'e2eeEnd', way, 1800 + meetings * 11 + i);
        const meeting = suite.sim.meeting(id, { lobby: false, e2ee: true, markupSeed });
        return { way, meeting, ...(await join(id)) };
      }),
    );
    for (const { way, listener, driver } of runs) {
      await listener.until(() => listener.failedWith !== null, `${way}: a failure`, 20_000);
      expect(listener.failedWith?.reason, way).to.equal('join_failed');
      expect(listener.failedWith?.detail, way).to.include('An encryption error occurred');
      expect(listener.warnings, `${way}: a known screen`).to.deep.equal([]);
      await driver.leave();
    }
  });

  it('reports rows of the recycling caption list equal to what was said', async () => {
    const id = newThread();
    const meeting = suite.sim.meeting(id, { lobby: false, visibleRows: 2 });
    const { listener, driver } = await join(id);
    await meeting.waitForBot((bot) => bot.captionsOn);

    await expectTurnsRead(meeting, listener, [
      { speaker: 'Ann Lee', heard: 'good morning every one', said: 'Good morning, everyone.' },
      { speaker: 'Ben Ode', heard: 'can you here me', said: 'Can you hear me?' },
      { speaker: 'Ann Lee', heard: 'Yes.' },
      { speaker: 'Ann Lee', heard: 'yes we can hear', said: 'Yes, we can hear you fine.' },
      { speaker: 'Ben Ode', heard: 'Great, let us start.' },
    ]);
    await driver.leave();
  });

  it('follows participants joining and leaving, without the bot itself', async () => {
    const id = '9381234567890';
    const meeting = suite.sim.meeting(id, { lobby: false });
    const { driver } = await comeAndGo(meeting, () => join(id), 'Ann Lee', 'Ben Ode');
    expect(meeting.truth().pageLoads.map((load) => load.platform)).to.deep.equal(['teams']);
    await driver.leave();
  });

  it('fails with admission_denied when the organiser denies access', async () => {
    const id = newThread();
    const meeting = suite.sim.meeting(id);
    const { listener, driver } = await join(id);
    await listener.until(() => listener.events.includes('lobby'), 'lobby');
    meeting.deny();
    await listener.until(() => listener.failedWith !== null, 'a failure');
    expect(listener.events).to.deep.equal(['lobby', 'failed:admission_denied']);
    await driver.leave();
  });

  it('ends with removed, then meeting_ended when the organiser ends the meeting', async () => {
    const inCall = async () => {
      const id = newThread();
      const meeting = suite.sim.meeting(id, { lobby: false });
      return { meeting, ...(await join(id)) };
    };
    const removed = await inCall();
    const ended = await inCall();
    await expectRemovedAndEnded(removed, ended);
    await Promise.all([removed.driver.leave(), ended.driver.leave()]);
  });

  for (const guests of ['refused_sign_in', 'refused_screen'] as const) {
    it(`fails with guest_refused where the tenant refuses anonymous guests (${guests})`, async () => {
      const id = newThread();
      suite.sim.meeting(id, { guests });
      const { listener, driver } = await join(id);
      await listener.until(() => listener.failedWith !== null, 'a failure');
      expect(listener.failedWith?.reason).to.equal('guest_refused');
      await driver.leave();
    });
  }
});
