import { expect } from 'chai';
import { createDriverFactory } from '../../src/drivers/index.js';
import {
  correctedTurn,
  growWords,
  seedWithChoice,
  type SimMeeting,
  waysOf,
} from '../../../../test/simulators/index.js';
import { comeAndGo, driversOnSimulator, expectMatchesTruth, joinSimulated, sleep } from './helpers.js';

/** Google Meet in real Chromium, against the simulator on meet.google.com. */
describe('Google Meet driver', function () {
  this.timeout(40_000);
  const suite = driversOnSimulator({ meetCaptionIdleMs: 1_000 });
  let codes = 0;

  /** A fresh meeting code for each test. */
  const newCode = () => `tst-${'abcdefghijklmnopqrstuvwxyz'[codes++ % 26]}mee-tng`;

  const join = (code: string, displayName = 'Notetaker') => joinSimulated(suite, 'google_meet', code, { displayName });

  /** Joins a fresh meeting, answers the bot in the lobby with `answer`, and waits for the driver to fail. */
  async function failInLobby(answer: (meeting: SimMeeting) => void) {
    const code = newCode();
    const meeting = suite.sim.meeting(code);
    const joined = await join(code);
    await joined.listener.until(() => joined.listener.events.includes('lobby'), 'lobby');
    answer(meeting);
    await joined.listener.until(() => joined.listener.failedWith !== null, 'a failure');
    return joined;
  }

  it('asks to join muted with the camera off, waits in the lobby, and is admitted', async () => {
    const code = newCode();
    const meeting = suite.sim.meeting(code, { prejoinDialog: 'recording', gotItPopup: true });
    const { listener, driver } = await join(code, 'Minutes Bot');
    await meeting.waitForBot((bot) => bot.screen === 'lobby');
    await listener.until(() => listener.events.includes('lobby'), 'lobby');
    await sleep(300);
    expect(listener.events).to.deep.equal(['lobby'], 'the "Return to home screen" button of the lobby is no rejection');
    meeting.admit();
    await listener.until(() => listener.events.includes('admitted'), 'admitted');
    const bot = await meeting.waitForBot((b) => b.captionsOn);
    expect(bot).to.include({ name: 'Minutes Bot', micOn: false, camOn: false, hl: 'en' });
    expect(meeting.truth().pageLoads[0].acceptLanguage).to.match(/^en-US/);
    // As a desktop Chrome asks: no "Headless" in the user agent, and its client hints sent.
    expect(meeting.truth().pageLoads[0].userAgent)
      .to.match(/ Chrome\/\d+/)
      .and.not.include('Headless');
    expect(meeting.truth().pageLoads[0].clientHints)
      .to.match(/"Chromium";v="\d+"/)
      .and.not.include('Headless');
    await driver.leave();
    expect(meeting.truth().bots[0].leftVia).to.equal('leave_button');
    expect(listener.events).to.deep.equal(['lobby', 'admitted', 'participants']);
  });

  /**
   * Joins a meeting per way `choice` goes (a seed drawing each), open or with a lobby (`hold` ms
   * there before the bot is let in), `people` in the call first, and waits till each bot is in.
   */
  async function joinEveryWay(
    choice: string,
    options: { lobby: boolean; account?: boolean; people?: string[]; hold?: number; transcribeAudio?: boolean },
  ) {
    const ways = waysOf('google_meet', choice);
    return Promise.all(
      ways.map(async (way, i) => {
        const code = newCode();
        const markupSeed = seedWithChoice('google_meet', choice, way, 9000 + codes * 31 + i);
        const meeting = suite.sim.meeting(code, { lobby: options.lobby, markupSeed });
        for (const person of options.people ?? []) meeting.join(person);
        const account = options.account
          ? suite.sim.account('google_meet', `Ada ${way}`, `ada.${way}.${code}@bots.example.com`)
          : null;
        const joined = await joinSimulated(suite, 'google_meet', code, {
          account: account && { name: 'meet bot', storageState: account.storageState },
          transcribeAudio: options.transcribeAudio,
        });
        if (options.lobby) {
          await joined.listener.until(() => joined.listener.events.includes('lobby'), `${way}: the lobby`);
          if (options.hold) await sleep(options.hold);
          meeting.admit();
        }
        await joined.listener.until(() => joined.listener.events.includes('admitted'), `${way}: admitted`);
        return { way, meeting, ...joined };
      }),
    );
  }

  it('gets past every pop-up before and after the join click by joining, never by leaving or signing in', async () => {
    for (const choice of ['prejoinPopup', 'joinInterstitial']) {
      const joined = await joinEveryWay(choice, { lobby: choice === 'joinInterstitial' });
      for (const { way, meeting, listener } of joined) {
        const bot = await meeting.waitForBot((b) => b.captionsOn);
        expect(bot, `${choice} ${way}`).to.include({ name: 'Notetaker', micOn: false, camOn: false, leftVia: null });
        expect(listener.failedWith, `${choice} ${way}`).to.equal(null);
        expect(listener.warnings, `${choice} ${way}: known screens`).to.deep.equal([]);
      }
      await Promise.all(joined.map(({ driver }) => driver.leave()));
    }
  });

  it('signed in on another device too, joins with "Switch here" or "Join here too" as with "Join now"', async () => {
    const joined = await joinEveryWay('signedInJoin', { lobby: false, account: true });
    for (const { way, meeting } of joined) {
      const bot = await meeting.waitForBot((b) => b.captionsOn);
      expect(bot, way).to.include({ name: `Ada ${way}`, micOn: false, camOn: false });
    }
    await Promise.all(joined.map(({ driver }) => driver.leave()));
  });

  it('with a toolbar hidden until the pointer moves: in the call, captions on, people read, left by its button', async () => {
    const code = newCode();
    const markupSeed = seedWithChoice('google_meet', 'toolbar', 'autoHide', 4100 + codes);
    const meeting = suite.sim.meeting(code, { lobby: false, markupSeed });
    meeting.join('Alice Smith');
    const { listener, driver } = await join(code);
    await meeting.waitForBot((bot) => bot.captionsOn);
    await listener.until(() => listener.roster?.join() === 'Alice Smith', 'Alice in the roster');
    expect(listener.warnings, 'no screen it was stuck on').to.deep.equal([]);
    // Long after the toolbar hid again (3 s without a move), the bot still leaves by its button.
    await sleep(4_000);
    await driver.leave();
    expect(meeting.truth().bots[0].leftVia).to.equal('leave_button');
  });

  it("the self-view's effects panel (a participant id, no person) is not the call, not a participant, no speaker", async () => {
    // Transcribed from audio: the only meetings whose tiles' looks are read.
    const joined = await joinEveryWay('effectsTile', {
      lobby: true,
      people: ['Alice Smith'],
      hold: 1_000,
      transcribeAudio: true,
    });
    for (const { way, meeting, listener } of joined) {
      if (way === 'none') continue;
      // The lobby shows the panel beside its own toolbar's Leave call: the bot waited there to be let in.
      expect(listener.events.slice(0, 2), way).to.deep.equal(['lobby', 'admitted']);
      await meeting.waitForBot((b) => b.captionsOn);
      await listener.until(() => listener.roster?.join() === 'Alice Smith', `${way}: Alice alone in the roster`);
      const named = new Set(listener.lookChanges.flatMap((c) => c.tiles.map((t) => t.name)));
      expect([...named], `${way}: the tiles whose looks are read`).to.deep.equal(['Alice Smith']);
    }
    await Promise.all(joined.map(({ driver }) => driver.leave()));
  });

  it('reports partials and finalised turns equal to what was said: corrections, shrinks, a split turn', async () => {
    const code = newCode();
    const meeting = suite.sim.meeting(code, { lobby: false, headDropWords: 12 });
    const { listener, driver } = await join(code);
    await meeting.waitForBot((bot) => bot.captionsOn);

    // Growing word by word with a correction and re-punctuation.
    await meeting.speak('Alice Smith', correctedTurn());
    // Someone else: Alice's turn ends. A long turn Meet trims from the start, with a shrink at its end.
    const bob = await meeting.speak(
      'Bob Jones',
      growWords('we need more time for testing because the simulator keeps finding real problems in the caption code'),
      50,
    );
    await bob.play(
      [
        'we need more time for testing because the simulator keeps finding real problems in the',
        'we need more time for testing because the simulator keeps finding real problems in the captions.',
      ],
      80,
    );
    // One turn Meet splits into two blocks, the tail of the first moving into the second.
    const first = await meeting.speak('Alice Smith', growWords('one more thing before we go and then'), 50);
    const second = first.split(1);
    await second.play(growWords('we are done.', 'then'), 60);
    await listener.until(() => listener.segments.length === 4, 'four segments');

    expectMatchesTruth(listener, meeting.truth());
    expect(meeting.truth().segments.map((s) => s.text)).to.deep.equal([
      'I think they’re going to ship on Friday.',
      'we need more time for testing because the simulator keeps finding real problems in the captions.',
      'one more thing before we go and',
      'then we are done.',
    ]);
    const starts = meeting.truth().segments.map((s) => Date.parse(s.startedAt));
    listener.segments.forEach((segment, i) =>
      expect(Math.abs(Date.parse(segment.timestamp) - starts[i])).to.be.below(1_000),
    );
    await driver.leave();
  });

  it('follows participants joining and leaving, without the bot itself', async () => {
    const code = newCode();
    // No captions button in reach: captions go on with the `c` key.
    const meeting = suite.sim.meeting(code, { lobby: false, captionsButton: false });
    const { driver } = await comeAndGo(meeting, () => join(code), 'Alice Smith', 'Bob Jones');
    await meeting.waitForBot((bot) => bot.captionsOn);
    expect(meeting.truth().participants.map((p) => [p.name, p.leftAt !== null])).to.deep.equal([
      ['Alice Smith', true],
      ['Bob Jones', false],
    ]);
    await driver.leave();
  });

  it('fails with admission_denied when someone in the call denies the request', async () => {
    const { listener, driver } = await failInLobby((meeting) => meeting.deny());
    expect(listener.failedWith?.reason).to.equal('admission_denied');
    expect(listener.events).to.deep.equal(['lobby', 'failed:admission_denied']);
    await driver.leave();
  });

  it('fails with lobby_timeout when nobody answers, by its own clock or by Meet giving up', async () => {
    const impatient = createDriverFactory({
      extraArgs: suite.sim.hostResolverRules(),
      lobbyTimeoutMs: 1_000,
      pollIntervalMs: 150,
    });
    try {
      const code = newCode();
      suite.sim.meeting(code);
      const { listener, driver } = await joinSimulated({ sim: suite.sim, factory: impatient }, 'google_meet', code, {
        meetingId: 'meeting_x',
      });
      await listener.until(() => listener.failedWith !== null, 'a failure');
      expect(listener.events).to.deep.equal(['lobby', 'failed:lobby_timeout']);
      await driver.leave();
    } finally {
      await impatient.close();
    }
    const { listener, driver } = await failInLobby((meeting) => meeting.noAnswer());
    expect(listener.failedWith?.reason).to.equal('lobby_timeout');
    await driver.leave();
  });

  it('ends with removed when taken out of the call, keeping the turn in progress', async () => {
    const code = newCode();
    const meeting = suite.sim.meeting(code, { lobby: false });
    const { listener, driver } = await join(code);
    await meeting.waitForBot((bot) => bot.captionsOn);
    await meeting.speak('Alice Smith', growWords('before you go'));
    await listener.until(() => listener.captions.at(-1)?.text === 'before you go', 'the last partial');
    meeting.removeBot();
    await listener.until(() => listener.endedWith !== null, 'the end');
    expect(listener.endedWith).to.equal('removed');
    expect(listener.events.slice(-2)).to.deep.equal(['segment', 'ended:removed']);
    expect(listener.segments.map((s) => s.text)).to.deep.equal(['before you go']);
    await driver.leave();
  });

  it('ends with meeting_ended when the host ends the meeting for everyone', async () => {
    const code = newCode();
    const meeting = suite.sim.meeting(code, { lobby: false });
    const { listener, driver } = await join(code);
    await listener.until(() => listener.events.includes('admitted'), 'admitted');
    meeting.end();
    await listener.until(() => listener.endedWith !== null, 'the end');
    expect(listener.endedWith).to.equal('meeting_ended');
    await driver.leave();
  });

  it('fails with meeting_not_found on a meeting code that does not exist', async () => {
    const code = newCode();
    suite.sim.meeting(code, { notFound: true });
    const { listener, driver } = await join(code);
    await listener.until(() => listener.failedWith !== null, 'a failure');
    expect(listener.failedWith?.reason).to.equal('meeting_not_found');
    await driver.leave();
  });
});
