import { expect } from 'chai';
import { growWords, zoomPwd, type MeetingOptions, type SimMeeting } from '../simulators/index.js';
import { expectKeptAsSaid, finishedStream } from './support/stream.js';
import { eventually } from '../support/wait.js';
import { chromiumMissing, payloadOf, sleep, startWorld, type StartedMeeting, type World } from './support/world.js';

/**
 * Zoom through the whole stack, as a customer meets it: starts over REST with every form of link,
 * the passcode three ways, the waiting room, a meeting the host starts late, the bot wall, and two
 * Zoom meetings transcribed beside a Meet and a Teams one; the real drivers in real Chromium
 * against the simulator on zoom.us, usNNweb.zoom.us and app.zoom.us.
 */
describe('Zoom (whole stack)', function () {
  this.timeout(120_000);
  let w: World;

  before(async function () {
    const missing = chromiumMissing();
    if (missing) throw new Error(missing);
    w = await startWorld();
  });
  after(async () => w?.close());

  /** Starts the bot on `link` over REST for the simulated Zoom meeting `id`; expects 201. */
  async function startLink(
    id: string,
    link: string,
    meeting: Partial<MeetingOptions> = {},
    request: Record<string, unknown> = {},
  ): Promise<StartedMeeting> {
    const sim: SimMeeting = w.sim.meeting(id, meeting);
    const res = await w.startRaw({
      url: link,
      callbackUrl: `${w.rx.url}/hooks/notetaker`,
      title: 'Zoom e2e',
      ...request,
    });
    const started = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`start of ${link} answered ${res.status} ${JSON.stringify(started)}`);
    expect(started.platform).to.equal('zoom');
    return { meetingId: String(started.meetingId), platform: 'zoom', sim, url: link, token: w.token, started };
  }

  const errorReason = async (m: StartedMeeting, timeoutMs?: number) =>
    payloadOf(await w.waitForStatus(m.meetingId, 'error', timeoutMs)).reason;

  async function stopUntilEnded(m: StartedMeeting): Promise<void> {
    expect((await w.stop(m.meetingId)).status).to.equal(200);
    await w.waitForStatus(m.meetingId, 'ended');
  }

  it('each form of link reaches live', async () => {
    const ids = [0, 1, 2, 3].map(() => w.newNativeId('zoom'));
    const personal = `grace.hopper${Date.now() % 100_000}`;
    const pwd = zoomPwd('Zk42');
    const links = [
      `https://us05web.zoom.us/j/${ids[0]}?pwd=${pwd}`,
      `https://zoom.us/j/${ids[1]}?pwd=${pwd}`,
      `https://app.zoom.us/wc/join/${ids[2]}?pwd=${pwd}`,
      `https://app.zoom.us/wc/${ids[3]}/join?pwd=${pwd}`,
      `https://zoom.us/my/${personal}?pwd=${pwd}`,
    ];
    const started = await Promise.all(
      [...ids, personal].map((id, i) => startLink(id, links[i], { lobby: false, passcode: 'Zk42' })),
    );
    for (const m of started) await w.waitForStatus(m.meetingId, 'live', 45_000);
    for (const m of started) expect(m.sim.truth().bots[0]).to.include({ micOn: false, camOn: false, platform: 'zoom' });
    await Promise.all(started.map(stopUntilEnded));
  });

  it('the passcode: in the link, given as passcode, or wrong (passcode_invalid)', async () => {
    const [inLink, given, wrong] = [0, 1, 2].map(() => w.newNativeId('zoom'));
    const meeting = { lobby: false, passcode: 'Pa55' };
    const viaLink = await startLink(inLink, `https://zoom.us/j/${inLink}?pwd=${zoomPwd('Pa55')}`, meeting);
    const viaField = await startLink(given, `https://zoom.us/j/${given}`, meeting, { passcode: 'Pa55' });
    const refused = await startLink(wrong, `https://zoom.us/j/${wrong}`, meeting, { passcode: 'nope' });
    await w.waitForStatus(viaLink.meetingId, 'live');
    await w.waitForStatus(viaField.meetingId, 'live');
    expect(await errorReason(refused)).to.equal('passcode_invalid');
    await Promise.all([stopUntilEnded(viaLink), stopUntilEnded(viaField)]);
  });

  it('the waiting room is the lobby; admitted, the meeting is live', async () => {
    const id = w.newNativeId('zoom');
    const m = await startLink(id, `https://zoom.us/j/${id}`, { lobby: true });
    await w.waitForStatus(m.meetingId, 'lobby');
    m.sim.admit();
    await w.waitForStatus(m.meetingId, 'live');
    await stopUntilEnded(m);
  });

  it('a meeting not started yet is waited on in joining, and joined once the host starts it', async () => {
    const id = w.newNativeId('zoom');
    const m = await startLink(id, `https://zoom.us/j/${id}`, { lobby: false, started: false });
    await eventually(() => m.sim.truth().pageLoads.some((load) => load.path.startsWith('/wc/')), 'the web client');
    // Nothing else happens while the host is away: the bot waits in joining.
    await sleep(3_000);
    expect(w.callbacks(m.meetingId).map((c) => payloadOf(c).status)).to.deep.equal(['joining']);
    m.sim.start();
    await w.waitForStatus(m.meetingId, 'live');
    await stopUntilEnded(m);
  });

  it('a bot wall (CAPTCHA) ends in error bot_detected within 10 s', async () => {
    const id = w.newNativeId('zoom');
    const startedAt = Date.now();
    const m = await startLink(id, `https://zoom.us/j/${id}`, { botWall: true });
    expect(await errorReason(m, 10_000)).to.equal('bot_detected');
    expect(Date.now() - startedAt).to.be.below(10_000);
  });

  it('two Zoom meetings at once beside a Meet and a Teams one: each transcript is what was said in it', async () => {
    const meetings = await Promise.all([
      w.start('zoom', { meeting: { lobby: false }, title: 'Zoom one' }),
      w.start('zoom', { meeting: { lobby: false }, title: 'Zoom two' }),
      w.start('google_meet', { meeting: { lobby: false }, title: 'Meet beside' }),
      w.start('teams', { meeting: { lobby: false }, title: 'Teams beside' }),
    ]);
    const speakers = ['Ada Zoom', 'Bo Zoom', 'Cy Meet', 'Di Teams'];
    meetings.forEach((m, i) => m.sim.join(speakers[i]));
    await Promise.all(meetings.map((m) => w.waitForStatus(m.meetingId, 'live', 45_000)));
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
        w.waitForCallback(
          m.meetingId,
          () => w.callbacks(m.meetingId).filter((c) => c.eventType === 'segment_finalized').length === 2,
          'two segments',
        ),
      ),
    );
    await Promise.all(meetings.map((m) => w.stop(m.meetingId)));
    for (const m of meetings) {
      const callbacks = await finishedStream(w, m, 'ended');
      const segments = await expectKeptAsSaid(w, m, callbacks, 'ended');
      expect(segments.map((s) => s.speaker)).to.deep.equal([
        speakers[meetings.indexOf(m)],
        speakers[meetings.indexOf(m)],
      ]);
    }
  });
});
