import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  growWords,
  seedWithZoomChoices,
  ZOOM_PREJOIN_VARIANTS,
  zoomLinkForms,
  zoomPwd,
  type MeetingOptions,
  type SimMeeting,
} from '../simulators/index.js';
import { expectKeptAsSaid, finalizedSegments, finishedStream } from './support/stream.js';
import { eventually } from '../support/wait.js';
import { importBotAccount, removeBotAccount } from './support/bot-accounts.js';
import { payloadOf, sleep, statusOf, useWorld, type StartedMeeting } from './support/world.js';

/**
 * Zoom through the whole stack, as a customer meets it: starts over REST with every form of link,
 * the passcode three ways, the waiting room admitted and denied, a meeting the host starts late,
 * removed, ended by the host, signed-in users only with and without a Zoom bot account, the bot
 * wall, and two Zoom meetings transcribed beside a Meet and a Teams one; the real drivers in real
 * Chromium against the simulator on zoom.us, usNNweb.zoom.us and app.zoom.us. The cases that wait
 * a timeout out run in a stack of their own with short timeouts (the second describe).
 */
describe('Zoom (whole stack)', function () {
  this.timeout(120_000);
  const world = useWorld({}, { chromiumRequired: true });

  /** Starts the bot on `link` over REST for the simulated Zoom meeting `id`; expects 201. */
  async function startLink(
    id: string,
    link: string,
    meeting: Partial<MeetingOptions> = {},
    request: Record<string, unknown> = {},
  ): Promise<StartedMeeting> {
    const sim: SimMeeting = world().sim.meeting(id, meeting);
    const res = await world().startRaw({
      url: link,
      callbackUrl: `${world().rx.url}/hooks/notetaker`,
      title: 'Zoom e2e',
      ...request,
    });
    const started = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`start of ${link} answered ${res.status} ${JSON.stringify(started)}`);
    expect(started.platform).to.equal('zoom');
    return { meetingId: String(started.meetingId), platform: 'zoom', sim, url: link, token: world().token, started };
  }

  const errorReason = async (m: StartedMeeting, timeoutMs?: number) =>
    payloadOf(await world().waitForStatus(m.meetingId, 'error', timeoutMs)).reason;

  async function stopUntilEnded(m: StartedMeeting): Promise<void> {
    expect((await world().stop(m.meetingId)).status).to.equal(200);
    await world().waitForStatus(m.meetingId, 'ended');
  }

  it('each form of link reaches live', async () => {
    const ids = [0, 1, 2, 3].map(() => world().newNativeId('zoom'));
    const personal = `grace.hopper${Date.now() % 100_000}`;
    const links = zoomLinkForms(ids, personal, 'Zk42');
    const started = await Promise.all(
      [...ids, personal].map((id, i) => startLink(id, links[i], { lobby: false, passcode: 'Zk42' })),
    );
    for (const m of started) await world().waitForStatus(m.meetingId, 'live', 45_000);
    for (const m of started) expect(m.sim.truth().bots[0]).to.include({ micOn: false, camOn: false, platform: 'zoom' });
    await Promise.all(started.map(stopUntilEnded));
  });

  it('the passcode: in the link, given as passcode, or wrong (passcode_invalid)', async () => {
    const [inLink, given, wrong] = [0, 1, 2].map(() => world().newNativeId('zoom'));
    const meeting = { lobby: false, passcode: 'Pa55' };
    const viaLink = await startLink(inLink, `https://zoom.us/j/${inLink}?pwd=${zoomPwd('Pa55')}`, meeting);
    const viaField = await startLink(given, `https://zoom.us/j/${given}`, meeting, { passcode: 'Pa55' });
    const refused = await startLink(wrong, `https://zoom.us/j/${wrong}`, meeting, { passcode: 'nope' });
    await world().waitForStatus(viaLink.meetingId, 'live');
    await world().waitForStatus(viaField.meetingId, 'live');
    expect(await errorReason(refused)).to.equal('passcode_invalid');
    await Promise.all([stopUntilEnded(viaLink), stopUntilEnded(viaField)]);
  });

  it('the waiting room is the lobby; admitted, the meeting is live', async () => {
    const id = world().newNativeId('zoom');
    const m = await startLink(id, `https://zoom.us/j/${id}`, { lobby: true });
    await world().waitForStatus(m.meetingId, 'lobby');
    m.sim.admit();
    await world().waitForStatus(m.meetingId, 'live');
    await stopUntilEnded(m);
  });

  it('a meeting not started yet is waited on in joining, and joined once the host starts it', async () => {
    const id = world().newNativeId('zoom');
    const m = await startLink(id, `https://zoom.us/j/${id}`, { lobby: false, started: false });
    await eventually(() => m.sim.truth().pageLoads.some((load) => load.path.startsWith('/wc/')), 'the web client');
    // Nothing else happens while the host is away: the bot waits in joining.
    await sleep(3_000);
    expect(world().callbacks(m.meetingId).map(statusOf)).to.deep.equal(['joining']);
    m.sim.start();
    await world().waitForStatus(m.meetingId, 'live');
    await stopUntilEnded(m);
  });

  it('a bot wall (CAPTCHA) ends in error bot_detected within 10 s, once, its snapshot (no text) named in the log', async () => {
    const id = world().newNativeId('zoom');
    const startedAt = Date.now();
    const m = await startLink(id, `https://zoom.us/j/${id}`, { botWall: true });
    expect(await errorReason(m, 10_000)).to.equal('bot_detected');
    expect(Date.now() - startedAt).to.be.below(10_000);
    const line = await world().waitForLogWarning(m.meetingId, { reason: 'bot_detected' });
    expect(path.dirname(String(line.snapshot))).to.equal(path.join(world().t.dataDir, 'caption-snapshots'));
    expect(String(line.msg)).to.include(String(line.snapshot));
    const snapshot = JSON.parse(fs.readFileSync(String(line.snapshot), 'utf8')) as Record<string, unknown>;
    expect(snapshot).to.include({ meetingId: m.meetingId, platform: 'zoom', reason: 'bot_detected' });
    const nodes = JSON.stringify(snapshot.nodes);
    expect(nodes).to.include('"tag":"iframe"');
    // Structure only: none of the page's words, not the bot's name.
    for (const words of [/security check/i, /make sure you are not a bot/i, /Notetaker/])
      expect(nodes).not.to.match(words);
    expect(fs.readFileSync(String(line.screenshot)).subarray(1, 4).toString(), 'a PNG').to.equal('PNG');
    // Never retried: one page load of the web client, no bot in the meeting.
    await sleep(1_500);
    expect(m.sim.truth().pageLoads.filter((load) => load.path.startsWith('/wc/'))).to.have.length(1);
    expect(m.sim.truth().bots).to.deep.equal([]);
  });

  it('the waiting room denied: error admission_denied', async () => {
    const id = world().newNativeId('zoom');
    const m = await startLink(id, `https://zoom.us/j/${id}`, { lobby: true });
    await world().waitForStatus(m.meetingId, 'lobby');
    m.sim.deny();
    expect(await errorReason(m)).to.equal('admission_denied');
  });

  it('removed by the host: ended removed; the host ends the meeting: ended meeting_ended', async () => {
    const [removedId, endedId] = [world().newNativeId('zoom'), world().newNativeId('zoom')];
    const removed = await startLink(removedId, `https://zoom.us/j/${removedId}`, { lobby: false });
    const ended = await startLink(endedId, `https://zoom.us/j/${endedId}`, { lobby: false });
    await Promise.all([
      world().waitForStatus(removed.meetingId, 'live'),
      world().waitForStatus(ended.meetingId, 'live'),
    ]);
    removed.sim.removeBot();
    ended.sim.end();
    expect(payloadOf(await world().waitForStatus(removed.meetingId, 'ended')).reason).to.equal('removed');
    expect(payloadOf(await world().waitForStatus(ended.meetingId, 'ended')).reason).to.equal('meeting_ended');
  });

  describe('a meeting for signed-in users only', () => {
    /** A Zoom account in the simulator, imported as a bot account over the identity commands. */
    const zoomBotAccount = () =>
      importBotAccount(world(), 'zoom', {
        displayName: 'Zed Minutes',
        email: 'zed.minutes@bots.example.com',
        name: 'zoom-bot',
      });

    it('without an account: sign_in_required, with signIn never or auto, on the refusal screen or zoom.us/signin', async () => {
      const cases = [
        { guests: 'refused_screen' as const, signIn: 'never' },
        { guests: 'refused_sign_in' as const, signIn: 'never' },
        { guests: 'refused_screen' as const, signIn: 'auto' },
        { guests: 'refused_sign_in' as const, signIn: 'auto' },
      ];
      const started = await Promise.all(
        cases.map(({ guests, signIn }) => {
          const id = world().newNativeId('zoom');
          return startLink(id, `https://zoom.us/j/${id}`, { guests, lobby: false }, { signIn });
        }),
      );
      for (const [i, m] of started.entries()) {
        expect(await errorReason(m), JSON.stringify(cases[i])).to.equal('sign_in_required');
        expect(m.sim.truth().bots, 'never let in').to.deep.equal([]);
      }
    });

    it('with a Zoom bot account: goes live signed in as the account', async () => {
      const account = await zoomBotAccount();
      try {
        const id = world().newNativeId('zoom');
        const m = await startLink(id, `https://zoom.us/j/${id}`, { guests: 'refused_sign_in', lobby: false });
        const live = await world().waitForStatus(m.meetingId, 'live', 45_000);
        expect(payloadOf(live).signedInAs).to.equal(account.name);
        expect(m.sim.truth().bots.map((b) => b.account)).to.deep.equal([account.sim.email]);
        expect(m.sim.truth().bots[0].name).to.equal('Zed Minutes');
        await stopUntilEnded(m);
      } finally {
        await removeBotAccount(world(), account.id);
      }
    });
  });

  it('a Zoom meeting joined and read on every pre-join variant (ids, placeholder-only, label-only, dialogs, terms, iframe, redirect)', async () => {
    const variants = ZOOM_PREJOIN_VARIANTS;
    // All at once in one stack, as the two Zoom meetings below: each its own pre-join on every page load.
    const meetings = await Promise.all(
      variants.map(([title, pinned], i) => {
        const markupSeed = seedWithZoomChoices(pinned, 11_000 + i * 997);
        return world().start('zoom', {
          meeting: { lobby: false, passcode: 'Zp19', markupSeed },
          title,
          request: { passcode: 'Zp19' },
        });
      }),
    );
    // The invitation carries no pwd here: every pre-join asks for the passcode.
    await Promise.all(meetings.map((m) => world().waitForStatus(m.meetingId, 'live', 60_000)));
    for (const [i, m] of meetings.entries()) {
      expect(m.sim.truth().bots[0], variants[i][0]).to.deep.include({ name: 'Notetaker', micOn: false, camOn: false });
      expect(m.sim.truth().bots[0].prejoin?.devicesAllowed, variants[i][0]).to.equal(false);
    }
    await Promise.all(meetings.map((m) => m.sim.waitForBot((b) => b.captionsOn)));
    await Promise.all(
      meetings.map((m, i) => m.sim.speak('Ivy Variant', growWords(`variant ${i + 1} says this sentence`))),
    );
    await Promise.all(
      meetings.map((m) =>
        world().waitForCallback(
          m.meetingId,
          () => finalizedSegments(world().callbacks(m.meetingId)).length === 1,
          'the segment',
        ),
      ),
    );
    await Promise.all(meetings.map((m) => world().stop(m.meetingId)));
    for (const [i, m] of meetings.entries()) {
      const segments = await expectKeptAsSaid(world(), m, await finishedStream(world(), m, 'ended'), 'ended');
      expect(
        segments.map((s) => `${s.speaker}: ${s.text}`),
        variants[i][0],
      ).to.deep.equal([`Ivy Variant: variant ${i + 1} says this sentence`]);
    }
  });

  it('two Zoom meetings at once beside a Meet and a Teams one: each transcript is what was said in it', async () => {
    const meetings = await Promise.all([
      world().start('zoom', { meeting: { lobby: false }, title: 'Zoom one' }),
      world().start('zoom', { meeting: { lobby: false }, title: 'Zoom two' }),
      world().start('google_meet', { meeting: { lobby: false }, title: 'Meet beside' }),
      world().start('teams', { meeting: { lobby: false }, title: 'Teams beside' }),
    ]);
    const speakers = ['Ada Zoom', 'Bo Zoom', 'Cy Meet', 'Di Teams'];
    meetings.forEach((m, i) => m.sim.join(speakers[i]));
    await Promise.all(meetings.map((m) => world().waitForStatus(m.meetingId, 'live', 45_000)));
    await Promise.all(meetings.map((m) => m.sim.waitForBot((b) => b.captionsOn)));
    await Promise.all(
      meetings.map((m, i) =>
        m.sim.speak(speakers[i], growWords(`this is ${speakers[i]} speaking in meeting ${i + 1}`)),
      ),
    );
    await Promise.all(
      meetings.map((m, i) =>
        m.sim.speak(speakers[i], growWords(`and a second sentence from ${speakers[i]} before we stop`)),
      ),
    );
    await Promise.all(
      meetings.map((m) =>
        world().waitForCallback(
          m.meetingId,
          () => finalizedSegments(world().callbacks(m.meetingId)).length === 2,
          'two segments',
        ),
      ),
    );
    await Promise.all(meetings.map((m) => world().stop(m.meetingId)));
    for (const m of meetings) {
      const callbacks = await finishedStream(world(), m, 'ended');
      const segments = await expectKeptAsSaid(world(), m, callbacks, 'ended');
      expect(segments.map((s) => s.speaker)).to.deep.equal([
        speakers[meetings.indexOf(m)],
        speakers[meetings.indexOf(m)],
      ]);
    }
  });
});

/** The cases that wait a timeout out, in a stack whose join and lobby timeouts are short. */
describe('Zoom (whole stack, short timeouts)', function () {
  this.timeout(60_000);
  const JOIN_TIMEOUT_MS = 10_000;
  const world = useWorld({ JOIN_TIMEOUT_MS: String(JOIN_TIMEOUT_MS), LOBBY_TIMEOUT_MS: '3000' });

  const start = (meeting: Partial<MeetingOptions>) => world().start('zoom', { meeting });

  it('the waiting room where nobody answers: error lobby_timeout', async () => {
    const m = await start({ lobby: true });
    await world().waitForStatus(m.meetingId, 'lobby');
    const error = await world().waitForStatus(m.meetingId, 'error', 15_000);
    expect(payloadOf(error)).to.include({ reason: 'lobby_timeout', previousStatus: 'lobby' });
  });

  it('a meeting the host never starts: error meeting_not_started after the join timeout, not before', async () => {
    const startedAt = Date.now();
    const m = await start({ started: false, lobby: false });
    const error = await world().waitForStatus(m.meetingId, 'error', JOIN_TIMEOUT_MS + 15_000);
    expect(payloadOf(error)).to.include({ reason: 'meeting_not_started', previousStatus: 'joining' });
    expect(Date.now() - startedAt).to.be.at.least(JOIN_TIMEOUT_MS);
    expect(m.sim.truth().bots, 'never let in').to.deep.equal([]);
  });
});
