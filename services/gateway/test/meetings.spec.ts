/** Meetings' start, stop and status through the gateway, on the whole stack (scripted meeting platform). */
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { evtMeeting, routes, type EventEnvelope } from '@notetaker/contracts';
import { startTestStack, type TestStack } from '../../../test/support/stack.js';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { eventually } from '../../../test/support/wait.js';
import { meetUrl } from './support/meeting-with-receiver.js';

const CALLBACK = 'http://127.0.0.1:9/hook';
/** A valid start request: most of the 400 cases below add one bad field to it. */
const VALID_START = { url: 'https://meet.google.com/abc-defg-hij', callbackUrl: CALLBACK };

describe('meetings REST', () => {
  let t: TestStack;
  let driver: ScriptedDriverFactory;
  let key: { id: string; apiKey: string };
  let otherKey: { id: string; apiKey: string };
  let readOnlyKey: { id: string; apiKey: string };
  const events = new Map<string, EventEnvelope[]>();

  before(async () => {
    driver = scriptedDriverFactory();
    t = await startTestStack({ FLUSH_INTERVAL_MS: '200', MAX_MEETINGS_PER_WORKER: '50' }, { driverFactory: driver });
    key = await t.createToken();
    otherKey = await t.createToken();
    readOnlyKey = await t.createToken([]);
    t.stack.bus.subscribe(evtMeeting('*', '*'), (data) => {
      const event = data as EventEnvelope;
      events.set(event.meetingId, [...(events.get(event.meetingId) ?? []), event]);
    });
  });
  after(() => t.stop());

  const start = (json: Record<string, unknown>, apiKey = key.apiKey) =>
    t.api('/meetings/start', { method: 'POST', apiKey, json });
  const stop = (meetingId: unknown, apiKey = key.apiKey) =>
    t.api('/meetings/stop', { method: 'POST', apiKey, json: { meetingId } });
  const status = async (apiKey = key.apiKey) => {
    const res = await t.api('/meetings/status', { apiKey });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { meetings: Array<Record<string, unknown>> }).meetings;
  };
  async function waitForStatus(meetingId: string, wanted: string): Promise<void> {
    await eventually(
      () => (events.get(meetingId) ?? []).some((e) => e.type === 'meeting_status' && e.payload.status === wanted),
      `${meetingId} to reach ${wanted}`,
      5000,
    );
  }

  it('starts a meeting: 201 with meetingId, joining, platform, project api, documentPath', async () => {
    const res = await start({ url: meetUrl(), callbackUrl: CALLBACK, title: 'Planning' });
    expect(res.status).to.equal(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).to.deep.equal(['documentPath', 'meetingId', 'platform', 'project', 'status']);
    expect(body).to.include({ status: 'joining', platform: 'google_meet', project: 'api' });
    expect(body.meetingId).to.match(/^meeting_\d{13}_[A-Za-z0-9]{10,}$/);
    expect(body.documentPath).to.match(
      /^deployed-md-files\/docs\/api\/meetings\/[A-Z][a-z]+ \d{1,2}(st|nd|rd|th) - Planning\.md$/,
    );
  });

  it('detects Teams links', async () => {
    const res = await start({
      url: 'https://teams.live.com/meet/9345678901234?p=AbCdEf',
      callbackUrl: CALLBACK,
      project: 'sales-team',
    });
    expect(res.status).to.equal(201);
    expect(await res.json()).to.include({ platform: 'teams', project: 'sales-team' });
  });

  /** A Teams meetup-join meeting of its own, in each form its link is found in (real-shaped ids). */
  function teamsMeeting() {
    const id = Array.from(
      { length: 48 },
      () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 62)],
    ).join('');
    const thread = `19:meeting_${id}@thread.v2`;
    const message = String(1_700_000_000_000 + Math.floor(Math.random() * 1e9));
    const context = encodeURIComponent(
      '{"Tid":"72f988bf-86f1-41af-91ab-2d7cd011db47","Oid":"2b1a6e0d-1f9a-4f1c-9b1e-6f1f1c1f1c1f"}',
    );
    const encoded = encodeURIComponent(thread);
    return {
      /** Where the bot must go, whichever form of the link was given. */
      joinPrefix: `https://teams.microsoft.com/l/meetup-join/${encoded}/${message}?context=`,
      plain: `https://teams.microsoft.com/l/meetup-join/${thread}/${message}?context=${context}`,
      encoded: `https://teams.microsoft.com/l/meetup-join/${encoded}/${message}?context=${context}`,
      v2: `https://teams.microsoft.com/v2/?meetingjoin=true#/l/meetup-join/${encoded}/${message}?context=${context}&anon=true`,
      launcher: `https://teams.microsoft.com/dl/launcher/launcher.html?url=${encodeURIComponent(
        `/_#/l/meetup-join/${encoded}/${message}?context=${context}&anon=true`,
      )}&type=meetup-join&deeplinkId=7a3f&directDl=true&msLaunch=true&enableMobilePage=true&suppressPrompt=true`,
    };
  }

  for (const form of ['plain', 'encoded', 'v2', 'launcher'] as const) {
    it(`starts a Teams meetup-join link (${form}) with platform teams, and a bot joins it`, async () => {
      const meeting = teamsMeeting();
      const res = await start({ url: meeting[form], callbackUrl: CALLBACK });
      expect(res.status).to.equal(201);
      const body = (await res.json()) as { meetingId: string; platform: string; status: string };
      expect(body).to.include({ status: 'joining', platform: 'teams' });
      const bot = await driver.meeting(body.meetingId);
      expect(bot.target.platform).to.equal('teams');
      expect(bot.target.url.startsWith(meeting.joinPrefix), bot.target.url).to.equal(true);
      await waitForStatus(body.meetingId, 'live');
      expect((await stop(body.meetingId)).status).to.equal(200);
    });
  }

  it('starts a teams.live.com meet link with a passcode with platform teams', async () => {
    const id = String(Math.floor(1e12 + Math.random() * 9e12));
    const res = await start({ url: `https://teams.live.com/meet/${id}?p=Zx9Qw2Er`, callbackUrl: CALLBACK });
    expect(res.status).to.equal(201);
    const body = (await res.json()) as { meetingId: string; platform: string };
    expect(body.platform).to.equal('teams');
    const bot = await driver.meeting(body.meetingId);
    expect(bot.target).to.include({ platform: 'teams', url: `https://teams.live.com/meet/${id}?p=Zx9Qw2Er` });
    await waitForStatus(body.meetingId, 'live');
    expect((await stop(body.meetingId)).status).to.equal(200);
  });

  it('answers 409 for the same Teams meeting through another wrapper or spelling, and joins no second bot', async () => {
    const meeting = teamsMeeting();
    const first = await start({ url: meeting.v2, callbackUrl: CALLBACK });
    expect(first.status).to.equal(201);
    const { meetingId } = (await first.json()) as { meetingId: string };
    const bots = driver.started.length;
    for (const [url, apiKey] of [
      [meeting.launcher, key.apiKey],
      [meeting.launcher, otherKey.apiKey],
      [meeting.plain, otherKey.apiKey],
      [meeting.encoded, key.apiKey],
    ]) {
      const res = await start({ url, callbackUrl: CALLBACK }, apiKey);
      expect(res.status, url).to.equal(409);
      expect(await res.json()).to.deep.equal({ error: 'Meeting URL is already being transcribed' });
    }
    expect(driver.started.length).to.equal(bots);
    expect((await status()).filter((m) => m.meetingId === meetingId)).to.have.length(1);
    await stop(meetingId);
  });

  it('leaves the URL free after a 403: the same URL then starts with a knowledge:write key', async () => {
    const url = meetUrl();
    const refused = await start({ url, callbackUrl: CALLBACK }, readOnlyKey.apiKey);
    expect(refused.status).to.equal(403);
    expect(await refused.json()).to.not.have.property('meetingId');
    const res = await start({ url, callbackUrl: CALLBACK }, otherKey.apiKey);
    expect(res.status).to.equal(201);
    const { meetingId } = (await res.json()) as { meetingId: string };
    expect((await driver.meeting(meetingId)).target.url).to.equal(url);
    await stop(meetingId, otherKey.apiKey);
  });

  it('answers documentPath null with saveTranscript false, also for a key without knowledge:write', async () => {
    const res = await start({ url: meetUrl(), callbackUrl: CALLBACK, saveTranscript: false }, readOnlyKey.apiKey);
    expect(res.status).to.equal(201);
    expect(((await res.json()) as { documentPath: unknown }).documentPath).to.equal(null);
  });

  it('answers 403 saying knowledge:write is missing, and launches no bot', async () => {
    const bots = driver.started.length;
    const res = await start({ url: meetUrl(), callbackUrl: CALLBACK }, readOnlyKey.apiKey);
    expect(res.status).to.equal(403);
    expect(((await res.json()) as { error: string }).error).to.contain('knowledge:write');
    expect(driver.started.length).to.equal(bots);
  });

  for (const [label, body, message] of [
    ['a missing url', { callbackUrl: CALLBACK }, 'url is required and must be a string'],
    ['a url that is a number', { url: 5, callbackUrl: CALLBACK }, 'url is required and must be a string'],
    ['a missing callbackUrl', { url: VALID_START.url }, 'callbackUrl is required and must be a string'],
    [
      'a non-http callbackUrl',
      { ...VALID_START, callbackUrl: 'file:///etc/passwd' },
      'callbackUrl must be an http(s) URL',
    ],
    [
      'a URL of no supported platform',
      { url: 'https://example.webex.com/meet/ada', callbackUrl: CALLBACK },
      /^url must be a Google Meet .* or Microsoft Teams meeting link$/,
    ],
    [
      'a Meet lookup link',
      { url: 'https://meet.google.com/lookup/abc', callbackUrl: CALLBACK },
      /^url must be a Google Meet/,
    ],
    ['a bad project id', { ...VALID_START, project: '-bad' }, /^project must match/],
    ['a title over 200 characters', { ...VALID_START, title: 't'.repeat(201) }, 'title must be at most 200 characters'],
    ['a title that is a number', { ...VALID_START, title: 42 }, 'title must be a string'],
    ['a title that is an object', { ...VALID_START, title: { text: 'Planning' } }, 'title must be a string'],
    ['a project that is a number', { ...VALID_START, project: 7 }, 'project must be a string'],
    ['a project that is an object', { ...VALID_START, project: { id: 'sales' } }, 'project must be a string'],
    [
      'a saveTranscript that is not a boolean',
      { ...VALID_START, saveTranscript: 'yes' },
      'saveTranscript must be a boolean',
    ],
    ['a coach of no known mode', { ...VALID_START, coach: 'gpt' }, 'coach must be one of rules, ai, off'],
    ['an unknown field', { ...VALID_START, bot: 'x' }, 'Unknown field: bot'],
  ] as const) {
    it(`answers 400 for ${label}`, async () => {
      const res = await start(body as Record<string, unknown>);
      expect(res.status).to.equal(400);
      const { error } = (await res.json()) as { error: string };
      if (typeof message === 'string') expect(error).to.equal(message);
      else expect(error).to.match(message);
    });
  }

  it('passes `coach` to the meeting: off raises no insight where the default (rules, no model here) does', async () => {
    const unanswered = async (coach?: string) => {
      const res = await start({ url: meetUrl(), callbackUrl: CALLBACK, ...(coach ? { coach } : {}) });
      expect(res.status).to.equal(201);
      const { meetingId } = (await res.json()) as { meetingId: string };
      await waitForStatus(meetingId, 'live');
      const bot = await driver.meeting(meetingId);
      const t0 = Date.now() - 120_000;
      bot.segment({ speaker: 'Ada', text: 'Any objections?', timestamp: new Date(t0).toISOString() });
      bot.segment({ speaker: 'Ada', text: 'Then we go ahead.', timestamp: new Date(t0 + 60_000).toISOString() });
      await eventually(
        () => (events.get(meetingId) ?? []).filter((e) => e.type === 'segment_finalized').length === 2,
        'two segments',
      );
      expect((await stop(meetingId)).status).to.equal(200);
      await waitForStatus(meetingId, 'ended');
      return (events.get(meetingId) ?? []).filter((e) => e.type === 'coach_insight').map((e) => e.payload);
    };
    expect(await unanswered('off')).to.deep.equal([]);
    const insights = await unanswered();
    expect(insights.map((p) => [p.category, p.source])).to.deep.equal([['questions', 'rules']]);
  });

  it('answers 409 for a URL already being transcribed, by this key, another key or the browser UI', async () => {
    const url = meetUrl();
    expect((await start({ url, callbackUrl: CALLBACK })).status).to.equal(201);
    const bots = driver.started.length;
    for (const apiKey of [key.apiKey, otherKey.apiKey]) {
      const res = await start(
        { url: url.toUpperCase().replace('HTTPS://MEET.GOOGLE.COM', 'https://meet.google.com'), callbackUrl: CALLBACK },
        apiKey,
      );
      expect(res.status).to.equal(409);
      expect(await res.json()).to.deep.equal({ error: 'Meeting URL is already being transcribed' });
    }
    // A meeting started from the browser UI (which belongs to no key) blocks keys too.
    const uiUrl = meetUrl();
    await call(t.stack.bus, routes.meetings.start, {
      caller: { kind: 'ui', accountId: 'acct_admin' },
      url: uiUrl,
      title: null,
      callbackUrl: null,
      project: 'api',
      saveTranscript: true,
    });
    const res = await start({ url: uiUrl, callbackUrl: CALLBACK });
    expect(res.status).to.equal(409);
    expect(await res.json()).to.deep.equal({ error: 'Meeting URL is already being transcribed' });
    expect(driver.started.length).to.equal(bots + 1);
  });

  it('stops a live meeting with 200 stopping, then 409 Meeting has ended, and frees the URL', async () => {
    const url = meetUrl();
    const { meetingId } = (await (await start({ url, callbackUrl: CALLBACK })).json()) as { meetingId: string };
    await waitForStatus(meetingId, 'live');
    const res = await stop(meetingId);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ meetingId, status: 'stopping' });
    await waitForStatus(meetingId, 'ended');
    expect((await driver.meeting(meetingId)).left).to.equal(true);
    const again = await stop(meetingId);
    expect(again.status).to.equal(409);
    expect(await again.json()).to.deep.equal({ error: 'Meeting has ended' });
    expect((await start({ url, callbackUrl: CALLBACK })).status).to.equal(201);
  });

  it("answers the same 404 for an unknown meeting and for another key's", async () => {
    const { meetingId } = (await (await start({ url: meetUrl(), callbackUrl: CALLBACK })).json()) as {
      meetingId: string;
    };
    const foreign = await stop(meetingId, otherKey.apiKey);
    const unknown = await stop('meeting_1700000000000_AAAAAAAAAAAAAAAA', otherKey.apiKey);
    expect([foreign.status, unknown.status]).to.deep.equal([404, 404]);
    expect(await foreign.json()).to.deep.equal({ error: 'Not found' });
    expect(await unknown.json()).to.deep.equal({ error: 'Not found' });
    expect((await status()).map((m) => m.meetingId)).to.include(meetingId);
  });

  it('answers 400 for a stop without a meetingId', async () => {
    const res = await t.api('/meetings/stop', { method: 'POST', apiKey: key.apiKey, json: {} });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.deep.equal({ error: 'meetingId is required and must be a string' });
  });

  it("lists only the calling key's meetings still being transcribed, with the documented fields", async () => {
    const fresh = await t.createToken();
    const { meetingId } = (await (
      await start({ url: meetUrl(), callbackUrl: CALLBACK, title: 'Standup' }, fresh.apiKey)
    ).json()) as {
      meetingId: string;
    };
    const gone = (await (await start({ url: meetUrl(), callbackUrl: CALLBACK }, fresh.apiKey)).json()) as {
      meetingId: string;
    };
    await waitForStatus(meetingId, 'live');
    await waitForStatus(gone.meetingId, 'live');
    await stop(gone.meetingId, fresh.apiKey);
    await waitForStatus(gone.meetingId, 'ended');
    const bot = await driver.meeting(meetingId);
    bot.participants(['Ada', 'Linus']);
    bot.segment({ speaker: 'Ada', text: 'Yesterday I fixed the build.' });
    const meetings = await eventually(
      async () => {
        const listed = await status(fresh.apiKey);
        return listed[0]?.segmentCount === 1 && listed;
      },
      'the segment counted in the status',
      5000,
    );
    expect(meetings).to.have.length(1);
    expect(Object.keys(meetings[0]).sort()).to.deep.equal(
      [
        'documentPath',
        'meetingId',
        'participantCount',
        'platform',
        'project',
        'segmentCount',
        'startedAt',
        'status',
        'title',
        'warnings', // why a live bot may be transcribing nothing
        'signedInAs', // additions: the bot account the bot joined with (null: a guest)
        'language', // and the caption language asked for (null: the platform's)
        'recording', // and the audio recording so far (null: not recorded)
        'transcription', // and where the words come from: {mode, source}
      ].sort(),
    );
    expect(meetings[0]).to.include({
      meetingId,
      status: 'live',
      platform: 'google_meet',
      title: 'Standup',
      participantCount: 2,
      segmentCount: 1,
      project: 'api',
    });
    expect(meetings[0].startedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(meetings[0].warnings).to.deep.equal([]);
    expect((await status(otherKey.apiKey)).map((m) => m.meetingId)).to.not.include(meetingId);
  });

  it('answers 401 without a key', async () => {
    const res = await t.api('/meetings/status');
    expect(res.status).to.equal(401);
    expect(await res.json()).to.deep.equal({ error: 'Invalid API key' });
  });
});
