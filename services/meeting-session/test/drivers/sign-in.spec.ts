import { expect } from 'chai';
import { seedWithChoice, waysOf, type SimAccount, type SimPlatform } from '../../../../test/simulators/index.js';
import type { JoinTarget } from '../../src/drivers/index.js';
import { driversOnSimulator, RecordingListener } from './helpers.js';

/**
 * Bots signed in to a bot account, in real Chromium against the simulators: the storage state goes
 * into the meeting's own context before its first page, the platform shows the account, and a state
 * the platform no longer accepts, or a guest it refuses, is told apart.
 */
describe('Signed-in bots (drivers)', function () {
  this.timeout(60_000);
  const suite = driversOnSimulator();
  let n = 0;

  const letters = (k: number) =>
    [0, 1, 2, 3].map((i) => String.fromCharCode(97 + (Math.floor(k / 26 ** i) % 26))).join('');
  const nativeId = (platform: SimPlatform) =>
    platform === 'google_meet' ? `sig-${letters(++n)}-zab` : `19:meeting_SignIn${++n}@thread.v2`;

  async function join(platform: SimPlatform, id: string, account: SimAccount | null) {
    const listener = new RecordingListener();
    const target: JoinTarget = {
      platform,
      url: suite.sim.url(platform, id),
      meetingId: `meeting_s${n}`,
      displayName: 'Notetaker',
      account: account && { name: `${account.platform} bot`, storageState: account.storageState },
    };
    const driver = suite.factory.create(target);
    await driver.start(listener);
    return { listener, driver };
  }

  for (const platform of ['google_meet', 'teams'] as const) {
    describe(platform, () => {
      it('a guest is refused where the meeting wants accounts: guest_refused, on the screen or the sign-in page', async () => {
        for (const guests of ['refused_screen', 'refused_sign_in'] as const) {
          const id = nativeId(platform);
          suite.sim.meeting(id, { guests });
          const { listener, driver } = await join(platform, id, null);
          await listener.until(() => listener.failedWith !== null, `a failure (${guests})`);
          expect(listener.failedWith?.reason, guests).to.equal('guest_refused');
          expect(listener.failedWith?.detail ?? '').not.to.match(/continue=|meet\.google\.com\/[a-z]/);
          await driver.leave();
        }
      });

      it('signed in, it gets past the refusal, is shown as the account, and names the identity it saw', async () => {
        const id = nativeId(platform);
        const meeting = suite.sim.meeting(id, { guests: 'refused_screen' });
        const account = suite.sim.account(platform, 'Ada Minutes', `ada.${platform}@bots.example.com`);
        const { listener, driver } = await join(platform, id, account);
        await listener.until(() => listener.events.includes('lobby'), 'the lobby');
        meeting.admit();
        await listener.until(() => listener.events.includes('admitted'), 'admitted');
        const bot = await meeting.waitForBot((b) => b.captionsOn);
        expect(bot).to.include({ account: account.email, name: 'Ada Minutes', micOn: false, camOn: false });
        expect(listener.identities).to.have.length(1);
        expect(listener.identities[0]).to.include('Ada Minutes');
        await meeting.join('Grace Host');
        await listener.until(() => listener.roster?.includes('Grace Host') === true, 'the roster');
        expect(listener.roster, 'the bot does not count itself by its account name').to.deep.equal(['Grace Host']);
        await driver.leave();
      });

      it('a storage state the platform no longer accepts ends on the sign-in page as signed_out', async () => {
        const id = nativeId(platform);
        suite.sim.meeting(id, { guests: 'refused_screen' });
        const account = suite.sim.account(platform, 'Old Session', `old.${platform}@bots.example.com`);
        suite.sim.signOut(account.email);
        const { listener, driver } = await join(platform, id, account);
        await listener.until(() => listener.failedWith !== null, 'a failure');
        expect(listener.failedWith?.reason).to.equal('signed_out');
        await driver.leave();
      });
    });
  }

  it('teams: the account button as builds draw it (ids, its label alone, "Your profile" with the name on its avatar)', async () => {
    const runs = await Promise.all(
      waysOf('teams', 'accountButton').map(async (way, i) => {
        const id = nativeId('teams');
        const markupSeed = seedWithChoice('teams', 'accountButton', way, 6000 + n * 7 + i);
        const meeting = suite.sim.meeting(id, { guests: 'refused_screen', lobby: false, markupSeed });
        const account = suite.sim.account('teams', `Ada ${way}`, `ada.${way}.${n}@bots.example.com`);
        return { way, meeting, account, ...(await join('teams', id, account)) };
      }),
    );
    for (const { way, meeting, account, listener } of runs) {
      await listener.until(() => listener.events.includes('admitted'), `${way}: admitted`);
      expect(listener.identities, `${way}: the identity the button shows`).to.deep.equal([account.name]);
      meeting.join('Grace Host');
      await listener.until(() => listener.roster?.includes('Grace Host') === true, `${way}: the roster`);
      expect(listener.roster, `${way}: never the bot by its account's name`).to.deep.equal(['Grace Host']);
    }
    await Promise.all(runs.map(({ driver }) => driver.leave()));
  });

  it('two accounts and a guest at once in one browser: each page carries only its own account', async () => {
    const meet = suite.sim.account('google_meet', 'Meet One', 'one@bots.example.com');
    const meet2 = suite.sim.account('google_meet', 'Meet Two', 'two@bots.example.com');
    const teams = suite.sim.account('teams', 'Teams Three', 'three@bots.example.com');
    const ids = [nativeId('google_meet'), nativeId('google_meet'), nativeId('teams'), nativeId('google_meet')];
    for (const id of ids) suite.sim.meeting(id, { lobby: false });
    const joined = await Promise.all([
      join('google_meet', ids[0], meet),
      join('google_meet', ids[1], meet2),
      join('teams', ids[2], teams),
      join('google_meet', ids[3], null),
    ]);
    await Promise.all(ids.map((id) => suite.sim.meeting(id).waitForBot((b) => b.screen === 'in_call')));
    expect(suite.factory.browsers()).to.have.length(1, 'the meetings share one browser, in contexts of their own');
    const seen = ids.map((id) =>
      suite.sim
        .meeting(id)
        .truth()
        .pageLoads.map((load) => load.sessionsSeen ?? []),
    );
    expect(seen[0].flat()).to.deep.equal([meet.email]);
    expect(seen[1].flat()).to.deep.equal([meet2.email]);
    expect([...new Set(seen[2].flat())]).to.deep.equal([teams.email]);
    expect(seen[3].flat(), 'the guest meeting carries no account').to.deep.equal([]);
    expect(ids.map((id) => suite.sim.meeting(id).truth().bots[0].account)).to.deep.equal([
      meet.email,
      meet2.email,
      teams.email,
      null,
    ]);
    await Promise.all(joined.map(({ driver }) => driver.leave()));
  });
});
