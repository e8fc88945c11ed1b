import { expect } from 'chai';
import {
  seedWithZoomChoices,
  startSimulator,
  zoomChoicesOf,
  zoomLinkForms,
  ZOOM_CHOICES,
  ZOOM_OTHER_HOST,
  type MeetingOptions,
  type Simulator,
  type ZoomChoices,
} from '../../../../test/simulators/index.js';
import { createDriverFactory, type JoinTarget, type PuppeteerDriverFactory } from '../../src/drivers/index.js';
import { parseMeetingUrl } from '../../src/meeting-url.js';
import { expectRemovedAndEnded, expectTurnsRead, RecordingListener } from './helpers.js';

/**
 * Zoom through its web client in real Chromium, against the simulator on zoom.us, us05web.zoom.us
 * and app.zoom.us: every link form, the passcode, the waiting room, a meeting not started, the
 * walls, the endings, captions with speakers from the full transcript, and the participants panel.
 */
describe('Zoom driver', function () {
  this.timeout(60_000);
  let sim: Simulator;
  let factory: PuppeteerDriverFactory;
  /** Short join and lobby timeouts, for the cases that wait them out. */
  let impatient: PuppeteerDriverFactory;
  let meetings = 0;

  before(async () => {
    sim = await startSimulator();
    const base = { extraArgs: sim.hostResolverRules(), pollIntervalMs: 150, zoomCaptionIdleMs: 800 };
    factory = createDriverFactory(base);
    impatient = createDriverFactory({ ...base, joinTimeoutMs: 3_000, lobbyTimeoutMs: 2_000 });
  });
  after(async () => {
    await Promise.all([factory?.close(), impatient?.close()]);
    await sim?.close();
  });

  /** A fresh 11-digit meeting id. */
  const newId = () => String(85_600_000_000 + ++meetings * 7919);

  /** Joins the link as a user would paste it: through the URL parser, as the service does. */
  async function join(link: string, target: Partial<JoinTarget> = {}, by = factory) {
    const listener = new RecordingListener();
    const driver = by.create({
      platform: 'zoom',
      url: parseMeetingUrl(link).joinUrl,
      meetingId: `meeting_z${meetings}`,
      displayName: 'Notetaker',
      ...target,
    });
    await driver.start(listener);
    return { listener, driver };
  }

  const failure = (listener: RecordingListener, timeoutMs?: number) =>
    listener.until(() => listener.failedWith !== null, 'a failure', timeoutMs);

  it('joins from every form of link, muted with the camera off, through the launch page or straight to the web client', async () => {
    const ids = [newId(), newId(), newId(), newId()];
    const personal = `ada.lovelace${meetings}`;
    for (const id of [...ids, personal]) sim.meeting(id, { lobby: false, passcode: 'Zq81' });
    const links = zoomLinkForms(ids, personal, 'Zq81');
    const joined = await Promise.all(links.map((link) => join(link)));
    for (const [i, id] of [...ids, personal].entries()) {
      const bot = await sim.meeting(id).waitForBot((b) => b.screen === 'in_call' && b.captionsOn);
      expect(bot, links[i]).to.include({ name: 'Notetaker', micOn: false, camOn: false, platform: 'zoom' });
      expect(joined[i].listener.events[0], links[i]).to.equal('admitted');
    }
    await Promise.all(joined.map(({ driver }) => driver.leave()));
    for (const id of [...ids, personal]) expect(sim.meeting(id).truth().bots[0].leftVia).to.equal('leave_button');
  });

  describe('the passcode', () => {
    it('is typed where the link carries none and the start gave one', async () => {
      const id = newId();
      const meeting = sim.meeting(id, { lobby: false, passcode: '771204' });
      const { listener, driver } = await join(`https://zoom.us/j/${id}`, { passcode: '771204' });
      await listener.until(() => listener.events.includes('admitted'), 'admitted');
      expect((await meeting.waitForBot((b) => b.screen === 'in_call')).name).to.equal('Notetaker');
      await driver.leave();
    });

    it('a wrong one fails with passcode_invalid, and so does one asked for and never given', async () => {
      const wrongId = newId();
      sim.meeting(wrongId, { passcode: '771204' });
      const wrong = await join(`https://zoom.us/j/${wrongId}`, { passcode: '000000' });
      const noneId = newId();
      sim.meeting(noneId, { passcode: '771204' });
      const none = await join(`https://app.zoom.us/wc/join/${noneId}`);
      await Promise.all([failure(wrong.listener), failure(none.listener)]);
      expect(wrong.listener.failedWith?.reason).to.equal('passcode_invalid');
      expect(none.listener.failedWith?.reason).to.equal('passcode_invalid');
      expect(sim.meeting(wrongId).truth().bots, 'never let in').to.deep.equal([]);
      await Promise.all([wrong.driver.leave(), none.driver.leave()]);
    });
  });

  describe('the waiting room', () => {
    it('is the lobby; admitted, the bot is in the call', async () => {
      const id = newId();
      const meeting = sim.meeting(id);
      const { listener, driver } = await join(`https://zoom.us/j/${id}`);
      await listener.until(() => listener.events.includes('lobby'), 'the lobby');
      expect(listener.events).to.deep.equal(['lobby'], 'the Leave button of the waiting room is not the call');
      meeting.admit();
      await listener.until(() => listener.events.includes('admitted'), 'admitted');
      await driver.leave();
    });

    it('denied: admission_denied; nobody answering: lobby_timeout', async () => {
      const deniedId = newId();
      const denying = sim.meeting(deniedId);
      const denied = await join(`https://zoom.us/j/${deniedId}`);
      const ignoredId = newId();
      sim.meeting(ignoredId);
      const ignored = await join(`https://zoom.us/j/${ignoredId}`, {}, impatient);
      await denied.listener.until(() => denied.listener.events.includes('lobby'), 'the lobby');
      denying.deny();
      await Promise.all([failure(denied.listener), failure(ignored.listener)]);
      expect(denied.listener.events).to.deep.equal(['lobby', 'failed:admission_denied']);
      expect(ignored.listener.events).to.deep.equal(['lobby', 'failed:lobby_timeout']);
      await Promise.all([denied.driver.leave(), ignored.driver.leave()]);
    });
  });

  describe('a meeting the host has not started', () => {
    it('is waited on, and joined once the host starts it', async () => {
      const id = newId();
      const meeting = sim.meeting(id, { started: false, lobby: false });
      const { listener, driver } = await join(`https://zoom.us/j/${id}`);
      await eventuallyOnScreen(listener, 'not_started');
      expect(listener.events, 'no lobby, no failure while the host is away').to.deep.equal([]);
      meeting.start();
      await listener.until(() => listener.events.includes('admitted'), 'admitted');
      await driver.leave();
    });

    it('never started: meeting_not_started after the join timeout, not before', async () => {
      const id = newId();
      sim.meeting(id, { started: false });
      const started = Date.now();
      const { listener, driver } = await join(`https://zoom.us/j/${id}`, {}, impatient);
      await failure(listener);
      expect(listener.failedWith?.reason).to.equal('meeting_not_started');
      expect(Date.now() - started).to.be.at.least(3_000);
      await driver.leave();
    });

    /** The page is on the host-waiting screen (read with the driver's own page script). */
    async function eventuallyOnScreen(listener: RecordingListener, screen: string) {
      // The driver reports nothing while waiting: give it the time to have reached the screen.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(listener.failedWith, `still waiting on the ${screen} screen`).to.equal(null);
    }
  });

  it('ends with removed when the host removes the bot, and meeting_ended when the host ends the meeting', async () => {
    const inCall = async () => {
      const id = newId();
      const meeting = sim.meeting(id, { lobby: false });
      return { meeting, ...(await join(`https://zoom.us/j/${id}`)) };
    };
    const removed = await inCall();
    const ended = await inCall();
    await expectRemovedAndEnded(removed, ended);
    await Promise.all([removed.driver.leave(), ended.driver.leave()]);
  });

  describe('the pre-join, in every form Zoom draws it', () => {
    /** A meeting whose every page load draws `pinned` (see seedWithZoomChoices), joined from its /j/ link. */
    async function joinVariant(pinned: Partial<ZoomChoices>, options: Partial<MeetingOptions> = {}, target = {}) {
      const id = newId();
      const markupSeed = seedWithZoomChoices(pinned, 7000 + meetings * 101);
      const meeting = sim.meeting(id, { lobby: false, markupSeed, ...options });
      return {
        pinned: `${JSON.stringify(pinned)} SIM_SEED=${markupSeed}`,
        meeting,
        ...(await join(`https://zoom.us/j/${id}`, target)),
      };
    }

    /** In the call as "Notetaker", muted with the camera off, having granted no device on the way. */
    async function expectJoinedWithoutDevices({ pinned, meeting }: Awaited<ReturnType<typeof joinVariant>>) {
      const bot = await meeting.waitForBot((b) => b.screen === 'in_call');
      expect(bot, pinned).to.include({ name: 'Notetaker', micOn: false, camOn: false });
      expect(bot.prejoin?.devicesAllowed, `${pinned}: a button granting devices pressed`).to.equal(false);
      return bot;
    }

    // Redirects pinned off where they would send the browser to the classic client (its own fields).
    const stay = { redirect: 'none' } as const;

    it('the name field in each form (React ids, classic #inputname, placeholder, visible label 4 ways, an unknown id), typed right', async () => {
      const forms = ZOOM_CHOICES.nameField.flatMap((nameField): Array<Partial<ZoomChoices>> =>
        nameField === 'label'
          ? ZOOM_CHOICES.fieldLabel.map((fieldLabel) => ({ nameField, fieldLabel, ...stay }))
          : [{ nameField, ...stay }],
      );
      const joined = await Promise.all(forms.map((pinned) => joinVariant(pinned)));
      for (const variant of joined) await expectJoinedWithoutDevices(variant);
      await Promise.all(joined.map(({ driver }) => driver.leave()));
    });

    it('the passcode typed in each field form (React id, classic, a text field with a placeholder, a label, a password field alone)', async () => {
      const joined = await Promise.all(
        ZOOM_CHOICES.passcodeField.map((passcodeField) =>
          joinVariant({ passcodeField, ...stay }, { passcode: '4417' }, { passcode: '4417' }),
        ),
      );
      for (const variant of joined) await expectJoinedWithoutDevices(variant);
      await Promise.all(joined.map(({ driver }) => driver.leave()));
    });

    it('the permission dialog, once or twice and in both wordings, answered without microphone and camera', async () => {
      const dialogs = (['once', 'twice'] as const).flatMap((permission) =>
        ZOOM_CHOICES.wording.map((wording) => ({ permission, wording })),
      );
      const joined = await Promise.all(dialogs.map((pinned) => joinVariant(pinned)));
      for (const variant of joined) {
        const bot = await expectJoinedWithoutDevices(variant);
        // The second dialog comes a moment after the first: Join waits for it.
        const shown = variant.pinned.includes('twice') ? 2 : 1;
        expect(bot.prejoin?.permissionDialogs, variant.pinned).to.equal(shown);
      }
      await Promise.all(joined.map(({ driver }) => driver.leave()));
    });

    it('terms after the first Join agreed (agreeing joins, or Join again), cookie banners accepted (OneTrust, a plain bar)', async () => {
      const screens = [
        ...(['agreeJoins', 'agreeThenJoin'] as const).flatMap((terms) =>
          ZOOM_CHOICES.wording.map((wording) => ({ terms, wording })),
        ),
        ...(['onetrust', 'banner'] as const).flatMap((cookies) =>
          ZOOM_CHOICES.wording.map((wording) => ({ cookies, wording })),
        ),
      ];
      const joined = await Promise.all(screens.map((pinned) => joinVariant(pinned)));
      for (const variant of joined) {
        const bot = await expectJoinedWithoutDevices(variant);
        if (variant.pinned.includes('terms')) expect(bot.prejoin?.termsAgreed, variant.pinned).to.equal(true);
        else expect(bot.prejoin?.cookiesAccepted, variant.pinned).to.equal(true);
      }
      await Promise.all(joined.map(({ driver }) => driver.leave()));
    });

    it('the client in iframe#webclient: joined, captions read with their speakers, participants read, audio heard, left by its button', async () => {
      const variant = await joinVariant(
        { clientFrame: 'iframe', captionName: 'avatarOnly', ...stay },
        {},
        { recordAudio: true },
      );
      const { meeting, listener, driver } = variant;
      meeting.join('Alice Host');
      await expectJoinedWithoutDevices(variant);
      expect(meeting.truth().pageLoads.map((load) => load.path)).to.deep.equal([`/wc/${meeting.id}/join`]);
      await listener.until(() => listener.roster?.join() === 'Alice Host', 'the roster from the iframe');
      await meeting.waitForBot((bot) => bot.captionsOn);
      await new Promise((resolve) => setTimeout(resolve, 600));
      await meeting.say('Ann Lee', 'The client is in a frame.');
      await listener.until(() => listener.segments.length === 1, 'the segment');
      expect(listener.segments.map((s) => `${s.speaker}: ${s.text}`)).to.deep.equal([
        'Ann Lee: The client is in a frame.',
      ]);
      await listener.until(() => listener.audioBatches.some((batch) => batch.tracks > 0), 'audio from the iframe');
      await driver.leave();
      expect(meeting.truth().bots[0].leftVia).to.equal('leave_button');
    });

    it('redirects followed: the web client to another host (HTTP 302, a script) or to the classic client, the launch page on to the web client', async () => {
      const hosts = { http: ZOOM_OTHER_HOST, script: ZOOM_OTHER_HOST, classic: 'zoom.us' } as const;
      const webClient = await Promise.all(
        (['http', 'script', 'classic'] as const).map(async (redirect) => ({
          host: hosts[redirect],
          ...(await joinVariant({ redirect })),
        })),
      );
      // A personal link opens the launch page, which sends the browser on (302 or a script) to app.zoom.us.
      const launch = await Promise.all(
        (['http', 'script'] as const).map(async (redirect) => {
          const name = `grace.h${++meetings}`;
          const markupSeed = seedWithZoomChoices({ redirect }, 9000 + meetings);
          const meeting = sim.meeting(name, { lobby: false, markupSeed });
          return {
            pinned: `launch ${redirect}`,
            meeting,
            host: ZOOM_OTHER_HOST,
            ...(await join(`https://zoom.us/my/${name}`)),
          };
        }),
      );
      for (const variant of [...webClient, ...launch]) {
        await expectJoinedWithoutDevices(variant);
        expect(
          variant.meeting.truth().pageLoads.map((load) => load.host),
          variant.pinned,
        ).to.deep.equal([variant.host]);
      }
      await Promise.all([...webClient, ...launch].map(({ driver }) => driver.leave()));
    });
  });

  describe('walls', () => {
    it('signed-in users only, without an account: guest_refused, on the refusal screen or zoom.us/signin', async () => {
      for (const guests of ['refused_screen', 'refused_sign_in'] as const) {
        const id = newId();
        sim.meeting(id, { guests });
        const { listener, driver } = await join(`https://zoom.us/j/${id}`);
        await failure(listener);
        expect(listener.failedWith?.reason, guests).to.equal('guest_refused');
        await driver.leave();
      }
    });

    it('signed in with a Zoom account, the bot gets past a meeting for signed-in users, shown as the account', async () => {
      const id = newId();
      const meeting = sim.meeting(id, { guests: 'refused_sign_in', lobby: false });
      const account = sim.account('zoom', 'Ada Minutes', 'ada.zoom@bots.example.com');
      const { listener, driver } = await join(`https://zoom.us/j/${id}`, {
        account: { name: 'zoom bot', storageState: account.storageState },
      });
      await listener.until(() => listener.events.includes('admitted'), 'admitted');
      expect(await meeting.waitForBot((b) => b.screen === 'in_call')).to.include({
        account: account.email,
        name: 'Ada Minutes',
      });
      expect(listener.identities).to.deep.equal(['Ada Minutes']);
      await driver.leave();
    });

    it('a CAPTCHA: bot_detected within 10 s, once, with the page structure (no text) and a screenshot', async () => {
      const id = newId();
      sim.meeting(id, { botWall: true });
      const started = Date.now();
      const { listener, driver } = await join(`https://zoom.us/j/${id}`);
      await failure(listener, 10_000);
      expect(Date.now() - started).to.be.below(10_000);
      expect(listener.events).to.deep.equal(['failed:bot_detected']);
      const evidence = listener.failedEvidence;
      expect(evidence?.snapshot.length, 'the page structure').to.be.greaterThan(3);
      // The CAPTCHA's iframe is in it; the page's words are not (aria labels are structure: the selectors match them).
      expect(evidence?.snapshot.map((node) => node.tag)).to.include('iframe');
      const structure = JSON.stringify(evidence?.snapshot);
      for (const words of [/security check/i, /make sure you are not a bot/i, /Notetaker/])
        expect(structure).not.to.match(words);
      expect(
        Buffer.from(evidence?.screenshot ?? [])
          .subarray(1, 4)
          .toString(),
        'a PNG',
      ).to.equal('PNG');
      await driver.leave();
    });

    it('each wall in both of its wordings: the same answer', async () => {
      const walls = [
        { options: { notFound: true }, reason: 'meeting_not_found' },
        { options: { botWall: true }, reason: 'bot_detected' },
        { options: { guests: 'refused_screen' as const }, reason: 'guest_refused' },
        { options: { passcode: '5150' }, passcode: '0000', reason: 'passcode_invalid' },
      ];
      const runs = await Promise.all(
        ZOOM_CHOICES.wording.flatMap((wording) =>
          walls.map(async ({ options, passcode, reason }) => {
            let seed = 3000 + meetings;
            while (zoomChoicesOf(seed).wording !== wording) seed++;
            const id = newId();
            sim.meeting(id, { ...options, markupSeed: seed });
            return { wording, reason, ...(await join(`https://zoom.us/j/${id}`, { passcode })) };
          }),
        ),
      );
      for (const { wording, reason, listener, driver } of runs) {
        await failure(listener);
        expect(listener.failedWith?.reason, `wording ${wording}`).to.equal(reason);
        await driver.leave();
      }
    });

    it('an invalid meeting id: meeting_not_found', async () => {
      const id = newId();
      sim.meeting(id, { notFound: true });
      const { listener, driver } = await join(`https://zoom.us/j/${id}`);
      await failure(listener);
      expect(listener.failedWith?.reason).to.equal('meeting_not_found');
      await driver.leave();
    });
  });

  describe('captions', () => {
    /** A seed of each way the overlay shows its lines and each captions control. */
    const seeds = ZOOM_CHOICES.captionName.flatMap((captionName) =>
      ZOOM_CHOICES.ccControl.map((ccControl) => {
        for (let seed = 1000 + meetings; ; seed++) {
          const drawn = zoomChoicesOf(seed);
          if (drawn.captionName === captionName && drawn.ccControl === ccControl)
            return { seed, captionName, ccControl };
        }
      }),
    );

    for (const { seed, captionName, ccControl } of seeds) {
      it(`are read with the right speakers (overlay ${captionName}, captions ${ccControl}; SIM_SEED=${seed})`, async () => {
        const id = newId();
        const meeting = sim.meeting(id, { lobby: false, markupSeed: seed });
        const { listener, driver } = await join(`https://zoom.us/j/${id}`);
        await meeting.waitForBot((bot) => bot.captionsOn);
        // The transcript panel is what names the speakers of an avatar-only overlay: give it a moment to open.
        await new Promise((resolve) => setTimeout(resolve, 600));
        await expectTurnsRead(meeting, listener, [
          { speaker: 'Ann Lee', heard: 'good morning every one', said: 'Good morning, everyone.' },
          { speaker: 'Ben Ode', heard: 'can you here me', said: 'Can you hear me?' },
          { speaker: 'Ann Lee', heard: 'Yes, loud and clear.' },
          { speaker: 'Ben Ode', heard: 'Great, let us start.' },
        ]);
        await driver.leave();
      });
    }
  });

  it('hears what is said on one mixed track, and reads its captions', async () => {
    const id = newId();
    const meeting = sim.meeting(id, { lobby: false });
    const { listener, driver } = await join(`https://zoom.us/j/${id}`, { recordAudio: true });
    await meeting.waitForBot((bot) => bot.captionsOn);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const utterance = await meeting.say('Ann Lee', 'We ship on Friday.');
    await listener.until(() => listener.segments.length === 1, 'the segment');
    expect(listener.segments.map((s) => `${s.speaker}: ${s.text}`)).to.deep.equal(['Ann Lee: We ship on Friday.']);
    const truth = meeting.truth().utterances.find((u) => u.id === utterance.id)!;
    expect(truth.plays.map((play) => play.slot)).to.deep.equal([0]);
    await listener.until(() => listener.audioBatches.length > 0, 'audio from the page');
    await driver.leave();
  });

  it('reads participants from the panel without "(Host)", "(Guest)" or "(me)", and never the bot, whichever way its own entry is labelled', async () => {
    const joined = await Promise.all(
      ZOOM_CHOICES.selfTile.map(async (selfTile) => {
        let seed = 2000 + meetings;
        while (zoomChoicesOf(seed).selfTile !== selfTile) seed++;
        const id = newId();
        const meeting = sim.meeting(id, { lobby: false, markupSeed: seed });
        meeting.join('Alice Host');
        meeting.join('Bob Visitor', { suffix: 'Guest' });
        return { selfTile, meeting, ...(await join(`https://zoom.us/j/${id}`)) };
      }),
    );
    for (const { selfTile, meeting, listener } of joined) {
      await listener.until(() => listener.roster?.length === 2, `the roster (${selfTile})`);
      expect(listener.roster, selfTile).to.deep.equal(['Alice Host', 'Bob Visitor']);
      meeting.leave('Alice Host');
      await listener.until(() => listener.roster?.join() === 'Bob Visitor', `Alice gone (${selfTile})`);
    }
    await Promise.all(joined.map(({ driver }) => driver.leave()));
  });
});
