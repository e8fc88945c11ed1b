/**
 * The web application's recording player over HTTP, on the real stack with the scripted platform:
 * the start form asks for a recording, a recorded meeting's page has the player beside its
 * transcript (and a meeting without one has none), the player's source streams the file under
 * the session with ranges, and it is the account's own. A test stands in for the bot's audio by
 * appending bytes to transcript-store over the bus, as the worker does.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { eventually } from '../../../../test/support/wait.js';
import { meetUrl } from '../support/meeting-with-receiver.js';
import { signedInStackPerSuite } from './support/signed-in-stack.js';
import { WebClient } from './support/web-client.js';

const FILE = Buffer.concat([Buffer.from('OggS'), crypto.randomBytes(300_000)]);
const STARTED_AT = '2030-01-02T03:04:05.000Z';

describe('web application: the recording player', function () {
  this.timeout(60_000);
  const t = signedInStackPerSuite();

  async function startHere(fields: Record<string, string> = {}): Promise<string> {
    const res = await t.owner.submit(
      '/meetings',
      { url: meetUrl(), title: 'Recorded sync', project: 'general', saveTranscript: 'true', ...fields },
      '/meetings',
    );
    expect(res.status, res.text.slice(0, 500)).to.equal(303);
    return res.location!.split('/').pop()!;
  }
  /** The status the meeting's page shows (its badge). */
  const statusOf = async (meetingId: string) =>
    /id="meeting-status"><span class="badge status-\w+" data-status="(\w+)"/.exec(
      (await t.owner.get(`/meetings/${meetingId}`)).text,
    )?.[1];

  async function live(meetingId: string) {
    await t.platform.meeting(meetingId);
    await eventually(async () => (await statusOf(meetingId)) === 'live', 'live');
  }
  async function end(meetingId: string) {
    const res = await t.owner.submit(`/meetings/${meetingId}/stop`, {}, `/meetings/${meetingId}`);
    expect(res.status).to.equal(303);
    await eventually(async () => (await statusOf(meetingId)) === 'ended', 'ended');
  }
  const record = (meetingId: string, bytes = FILE) =>
    call(t.stack.bus, routes.recordings.append, {
      meetingId,
      startedAt: STARTED_AT,
      offset: 0,
      data: bytes.toString('base64'),
      durationMs: 42_000,
    });

  it('asks for a recording on the start form and passes it to the bot', async () => {
    const page = await t.owner.get('/meetings');
    expect(page.text).to.match(/<select id="f-recording" name="recording"/);
    for (const mode of ['audio', 'none']) expect(page.text).to.contain(`value="${mode}"`);
    const before = t.platform.started.length;
    const recorded = await startHere({ recording: 'audio' });
    const plain = await startHere();
    await eventually(() => t.platform.started.length === before + 2, 'both bots started');
    expect((await t.platform.meeting(recorded)).target.recordAudio).to.equal(true);
    expect((await t.platform.meeting(plain)).target.recordAudio).to.equal(false);
    const bad = await t.owner.submit(
      '/meetings',
      { url: meetUrl(), project: 'general', recording: 'video' },
      '/meetings',
    );
    expect(bad.status).to.equal(400);
    expect(bad.text).to.match(/id="f-recording-error"[^>]*>recording must be one of audio, none/);
    await live(recorded);
    await live(plain);
    await end(recorded);
    await end(plain);
  });

  it('shows no player for a meeting without a recording', async () => {
    const meetingId = await startHere();
    await live(meetingId);
    (await t.platform.meeting(meetingId)).segment({ speaker: 'Ann', text: 'Nothing recorded here.' });
    await end(meetingId);
    const page = await t.owner.get(`/meetings/${meetingId}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('Nothing recorded here.');
    expect(page.text).not.to.contain('<audio');
    expect(page.text).not.to.contain('seekable');
    expect((await t.owner.get(`/meetings/${meetingId}/recording`)).status).to.equal(404);
  });

  it('shows the player beside the transcript of a recorded meeting, live and ended; its source streams with ranges', async () => {
    const meetingId = await startHere();
    await live(meetingId);
    const meeting = await t.platform.meeting(meetingId);
    meeting.segment({ speaker: 'Ann', text: 'Ten seconds in.', timestamp: '2030-01-02T03:04:15.000Z' });
    await record(meetingId);

    const during = await t.owner.get(`/meetings/${meetingId}`);
    expect(during.text).to.contain(
      `<audio id="recording-player" controls preload="metadata" src="/meetings/${meetingId}/recording"></audio>`,
    );
    expect(during.text).to.contain('Recording in progress');

    await end(meetingId);
    // Ended, while its worker still sends what it spooled: what is stored plays, and the page says so.
    const storing = await t.owner.get(`/meetings/${meetingId}`);
    expect(storing.text).to.contain('The meeting has ended; its recording is still being stored.');
    expect(storing.text).to.contain('<audio id="recording-player"');
    const sofar = await fetch(`${t.baseUrl}/meetings/${meetingId}/recording`, { headers: cookieOf(t.owner) });
    expect([sofar.status, sofar.headers.get('x-recording-status')]).to.deep.equal([200, 'recording']);
    await sofar.arrayBuffer();

    await call(t.stack.bus, routes.recordings.finish, { meetingId });
    const page = await t.owner.get(`/meetings/${meetingId}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.contain(`<figure id="recording" class="recording" data-started-at="${STARTED_AT}">`);
    expect(page.text).to.contain('<audio id="recording-player" controls preload="metadata"');
    expect(page.text).to.contain('Recording, 0:42.');
    expect(page.text).to.match(/<ol\s+id="segments"\s+class="segments seekable"/);
    // The player comes before the transcript it plays, in the same column.
    expect(page.text.indexOf('recording-player')).to.be.below(page.text.indexOf('Ten seconds in.'));
    expect(page.text).to.contain('datetime="2030-01-02T03:04:15.000Z"');
    // The page's CSP is unchanged: the player is same-origin (default-src 'self'), the seeking in app.js.
    expect(page.headers.get('content-security-policy')).to.contain("default-src 'self'; script-src 'self'");
    expect((await t.owner.get('/static/app.js')).text).to.contain('recording-player');

    const whole = await fetch(`${t.baseUrl}/meetings/${meetingId}/recording`, { headers: cookieOf(t.owner) });
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-type')).to.equal('audio/ogg');
    expect(whole.headers.get('accept-ranges')).to.equal('bytes');
    expect(whole.headers.get('cache-control')).to.equal('private, no-store');
    expect(Buffer.from(await whole.arrayBuffer()).equals(FILE)).to.equal(true);
    const part = await fetch(`${t.baseUrl}/meetings/${meetingId}/recording`, {
      headers: { ...cookieOf(t.owner), Range: 'bytes=-100' },
    });
    expect(part.status).to.equal(206);
    expect(part.headers.get('content-range')).to.equal(`bytes ${FILE.length - 100}-${FILE.length - 1}/${FILE.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(FILE.subarray(FILE.length - 100))).to.equal(true);
    const beyond = await fetch(`${t.baseUrl}/meetings/${meetingId}/recording`, {
      headers: { ...cookieOf(t.owner), Range: `bytes=${FILE.length}-` },
    });
    expect(beyond.status).to.equal(416);
    expect(beyond.headers.get('content-range')).to.equal(`bytes */${FILE.length}`);

    // Deleted: no player any more, and its source is gone.
    await call(t.stack.bus, routes.recordings.delete, { meetingId });
    const after = await t.owner.get(`/meetings/${meetingId}`);
    expect(after.text).not.to.contain('<audio');
    expect((await t.owner.get(`/meetings/${meetingId}/recording`)).status).to.equal(404);
  });

  it("is the account's own: another account and API keys get 404, a visitor signed out is sent to sign in", async () => {
    const meetingId = await startHere();
    await live(meetingId);
    await record(meetingId);
    await end(meetingId);

    await t.stack.admin({ command: 'account.create', email: 'member@example.com', password: 'member long password' });
    const member = new WebClient(t.baseUrl);
    expect((await member.signIn('member@example.com', 'member long password')).status).to.equal(303);
    expect((await member.get(`/meetings/${meetingId}`)).status).to.equal(404);
    const foreign = await member.get(`/meetings/${meetingId}/recording`);
    expect(foreign.status).to.equal(404);
    expect(foreign.headers.get('content-type')).to.match(/^text\/html/);
    expect(foreign.text).not.to.contain('OggS');

    // A meeting started here belongs to no API key.
    const { apiKey } = await t.createToken();
    expect((await t.api(`/meetings/${meetingId}/recording`, { apiKey })).status).to.equal(404);
    expect((await t.api(`/meetings/${meetingId}/recording/info`, { apiKey })).status).to.equal(404);

    const visitor = await fetch(`${t.baseUrl}/meetings/${meetingId}/recording`, { redirect: 'manual' });
    expect(visitor.status).to.equal(303);
    expect(visitor.headers.get('location')).to.match(/^\/signin/);
    // An API key opens no page (nor the page's audio).
    const keyed = await fetch(`${t.baseUrl}/meetings/${meetingId}/recording`, {
      headers: { 'X-API-Key': apiKey },
      redirect: 'manual',
    });
    expect(keyed.status).to.equal(303);
  });
});

function cookieOf(client: WebClient): Record<string, string> {
  return { Cookie: `nt_session=${client.cookies.get('nt_session')}` };
}
