import { expect } from 'chai';
import { growWords, startSimulator, type Simulator } from '../../../../test/simulators/index.js';
import {
  browserProcesses,
  createDriverFactory,
  type DriverFactoryOptions,
  type PuppeteerDriverFactory,
} from '../../src/drivers/index.js';
import { expectMatchesTruth, joinSimulated } from './helpers.js';
import { eventually } from '../../../../test/support/wait.js';
// This process's Chromium but the simulators' media server (it sends the call's audio and cameras).
import { chromiumProcesses } from '../../../../test/e2e/support/chromium.js';

/** Browsers: launch failures, crashes, isolation between meetings, and nothing left running. */
describe('Driver browsers', function () {
  this.timeout(40_000);
  let sim: Simulator;
  const factories: PuppeteerDriverFactory[] = [];

  before(async () => {
    sim = await startSimulator();
  });
  afterEach(async () => {
    await Promise.all(factories.splice(0).map((factory) => factory.close()));
  });
  after(async () => {
    await sim?.close();
  });

  function newFactory(options: DriverFactoryOptions = {}): PuppeteerDriverFactory {
    const factory = createDriverFactory({
      extraArgs: sim.hostResolverRules(),
      meetCaptionIdleMs: 600,
      teamsCaptionIdleMs: 600,
      pollIntervalMs: 150,
      ...options,
    });
    factories.push(factory);
    return factory;
  }

  async function live(factory: PuppeteerDriverFactory, platform: 'google_meet' | 'teams', id: string) {
    const meeting = sim.meeting(id, { lobby: false });
    const { listener, driver } = await joinSimulated({ sim, factory }, platform, id);
    await meeting.waitForBot((bot) => bot.captionsOn);
    return { meeting, listener, driver };
  }

  /** What `alive()` still finds after a moment for processes to exit ([] as soon as it is empty). */
  function leftAfterExit(alive: () => number[]): Promise<number[]> {
    return eventually(() => alive().length === 0, 'the processes to exit', 5_000).then(
      () => [],
      () => alive(),
    );
  }

  it('fails with browser_unavailable when no browser can be launched', async () => {
    const factory = newFactory({ chromePath: '/nonexistent/chromium' });
    const { listener, driver } = await joinSimulated({ sim, factory }, 'google_meet', 'brw-unav-ail', {
      meetingId: 'meeting_u',
    });
    await listener.until(() => listener.failedWith !== null, 'a failure');
    expect(listener.failedWith?.reason).to.equal('browser_unavailable');
    await driver.leave();
  });

  it('leaves through the leave button and leaves no Chromium process behind', async () => {
    const factory = newFactory();
    const { meeting, driver } = await live(factory, 'google_meet', 'brw-leav-eme');
    const groups = factory.browsers().map((browser) => browser.pid!);
    expect(groups).to.have.length(1);
    expect(browserProcesses(groups[0]).length).to.be.greaterThan(3);
    await driver.leave();
    expect(meeting.truth().bots[0].leftVia).to.equal('leave_button');
    expect(factory.browsers()).to.deep.equal([]);
    expect(await leftAfterExit(() => [...browserProcesses(groups[0]), ...chromiumProcesses()])).to.deep.equal([]);
  });

  it('fails with browser_crashed when Chromium is killed, after finalising the turn in progress', async () => {
    const factory = newFactory();
    const first = await live(factory, 'google_meet', 'brw-cras-hed');
    const second = await live(factory, 'teams', '19:meeting_crash@thread.v2');
    const [browser] = factory.browsers();
    expect(browser.meetings).to.equal(2);
    await first.meeting.speak('Alice Smith', growWords('this was said before the crash'));
    await first.listener.until(
      () => first.listener.captions.at(-1)?.text === 'this was said before the crash',
      'the partial',
    );

    process.kill(browser.pid!, 'SIGKILL');
    await first.listener.until(() => first.listener.failedWith !== null, 'a failure');
    await second.listener.until(() => second.listener.failedWith !== null, 'a failure');
    expect(first.listener.failedWith?.reason).to.equal('browser_crashed');
    expect(second.listener.failedWith?.reason).to.equal('browser_crashed');
    expect(first.listener.events.slice(-2)).to.deep.equal(['segment', 'failed:browser_crashed']);
    expect(first.listener.segments.map((s) => s.text)).to.deep.equal(['this was said before the crash']);
    expect(await leftAfterExit(() => [...browserProcesses(browser.pid!), ...chromiumProcesses()])).to.deep.equal([]);
    await Promise.all([first.driver.leave(), second.driver.leave()]);
  });

  it('ends only the meetings of the browser that crashed', async () => {
    const factory = newFactory({ meetingsPerBrowser: 1 });
    const doomed = await live(factory, 'google_meet', 'brw-doom-edd');
    const spared = await live(factory, 'google_meet', 'brw-spar-edd');
    expect(factory.browsers()).to.have.length(2);
    const doomedPid = factory.browsers()[0].pid!;

    process.kill(doomedPid, 'SIGKILL');
    await doomed.listener.until(() => doomed.listener.failedWith !== null, 'a failure');
    await spared.meeting.speak('Bob Jones', growWords('still here after the other browser died'));
    await spared.listener.until(() => spared.listener.segments.length === 1, 'a segment');
    expect(spared.listener.failedWith).to.equal(null);
    expectMatchesTruth(spared.listener, spared.meeting.truth());
    expect(factory.browsers()).to.have.length(1);
    expect(await leftAfterExit(() => browserProcesses(doomedPid))).to.deep.equal([]);
    await Promise.all([doomed.driver.leave(), spared.driver.leave()]);
  });

  it('keeps two meetings at once apart', async () => {
    const factory = newFactory();
    const meet = await live(factory, 'google_meet', 'brw-twom-eet');
    const teams = await live(factory, 'teams', '19:meeting_two@thread.v2');
    expect(factory.browsers()).to.deep.equal([{ pid: factory.browsers()[0].pid, meetings: 2 }]);
    meet.meeting.join('Alice Smith');
    teams.meeting.join('Ben Ode');
    await Promise.all([
      meet.meeting
        .speak('Alice Smith', growWords('alpha beta gamma'))
        .then((turn) => turn.play(growWords('delta epsilon', 'alpha beta gamma'))),
      teams.meeting.speak('Ben Ode', growWords('one two three four five')),
    ]);
    await meet.listener.until(() => meet.listener.segments.length === 1, 'the Meet segment');
    await teams.listener.until(() => teams.listener.segments.length === 1, 'the Teams segment');
    expectMatchesTruth(meet.listener, meet.meeting.truth());
    expectMatchesTruth(teams.listener, teams.meeting.truth());
    expect(meet.listener.roster).to.deep.equal(['Alice Smith']);
    expect(teams.listener.roster).to.deep.equal(['Ben Ode']);
    await Promise.all([meet.driver.leave(), teams.driver.leave()]);
  });
});
