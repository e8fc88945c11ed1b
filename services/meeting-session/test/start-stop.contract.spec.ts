/** svc.meetings.start | stop | status | get over the bus, with transcript-store and webhook-emitter for real. */
import { expect } from 'chai';
import { MEETING_ID, ServiceError } from '@notetaker/contracts';
import {
  eventually,
  freshMeetUrl,
  liveAfterSaying,
  OTHER_CALLER,
  READ_ONLY_CALLER,
  rejection,
  startHarness,
  statuses,
  TOKEN_CALLER,
  UI_CALLER,
  type Harness,
} from './support/harness.js';

describe('meeting-session start/stop/status (bus contract)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.stop());

  it('starts a meeting: joining, then lobby and live as the bot is admitted', async () => {
    const started = await h.start({ title: 'Kick-off' });
    expect(started).to.include({ status: 'joining', platform: 'google_meet', project: 'api' });
    expect(started.meetingId).to.match(MEETING_ID);
    expect(started.documentPath).to.match(/^deployed-md-files\/docs\/api\/meetings\/.+ - Kick-off\.md$/);
    await h.waitForEvent(started.meetingId, (e) => e.type === 'meeting_status' && e.payload.status === 'live');
    expect(statuses(h, started.meetingId)).to.deep.equal([
      { status: 'joining', previousStatus: null, reason: null },
      { status: 'lobby', previousStatus: 'joining', reason: null },
      { status: 'live', previousStatus: 'lobby', reason: null },
    ]);
    expect(h.events(started.meetingId).map((e) => e.sequence)).to.deep.equal([1, 2, 3]);
    const bot = await h.driver.meeting(started.meetingId);
    expect(bot.target.platform).to.equal('google_meet');
  });

  it("starts a Zoom meeting, handing the start's passcode to the bot, and refuses the same meeting by another link", async () => {
    const started = await h.start({ url: 'https://us05web.zoom.us/j/85612345678', passcode: '771204' });
    expect(started.platform).to.equal('zoom');
    const bot = await h.driver.meeting(started.meetingId);
    expect(bot.target).to.include({
      platform: 'zoom',
      url: 'https://app.zoom.us/wc/join/85612345678',
      passcode: '771204',
    });
    const again = await rejection(h.start({ url: 'https://app.zoom.us/wc/85612345678/join?pwd=x1' }));
    expect(again.status).to.equal(409);
  });

  it('gives meeting ids of the documented shape, each one different', async () => {
    const ids = await Promise.all([h.start(), h.start(), h.start()]);
    for (const { meetingId } of ids) {
      expect(meetingId).to.match(/^meeting_\d{13}_[A-Za-z0-9]{10,}$/);
      expect(Math.abs(Number(meetingId.split('_')[1]) - Date.now())).to.be.below(60_000);
    }
    expect(new Set(ids.map((i) => i.meetingId)).size).to.equal(3);
  });

  it('refuses saveTranscript without knowledge:write with 403 saying so, and launches no bot', async () => {
    const bots = h.driver.started.length;
    const err = await rejection(h.start({ caller: READ_ONLY_CALLER }));
    expect(err.status).to.equal(403);
    expect(err.message).to.contain('knowledge:write');
    expect(h.driver.started.length).to.equal(bots);
    const streaming = await h.start({ caller: READ_ONLY_CALLER, saveTranscript: false });
    expect(streaming.documentPath).to.equal(null);
  });

  for (const [label, overrides, message] of [
    [
      'a URL of no supported platform',
      { url: 'https://example.webex.com/meet/ada' },
      /^url must be a Google Meet .* or Microsoft Teams meeting link$/,
    ],
    ['a Meet lookup link', { url: 'https://meet.google.com/lookup/abcdef' }, /^url must be/],
    ['a non-http callbackUrl', { callbackUrl: 'ftp://example.com/hook' }, /^callbackUrl must be an http\(s\) URL$/],
    ['a title over 200 characters', { title: 'x'.repeat(201) }, /^title must be at most 200 characters$/],
    ['a bad project id', { project: '../etc' }, /^project must match/],
    ['a passcode over 32 characters', { passcode: 'x'.repeat(33) }, /^passcode must be a string of 1-32 characters$/],
    ['a url that is not a string', { url: 42 }, /url/],
  ] as const) {
    it(`answers 400 for ${label}, naming the field`, async () => {
      const err = await rejection(h.start(overrides as Record<string, unknown>));
      expect(err.status).to.equal(400);
      expect(err.message).to.match(message);
    });
  }

  it('answers 409 while the same meeting is live, whoever holds it, and joins no second bot', async () => {
    const url = freshMeetUrl();
    await h.start({ url, caller: UI_CALLER, callbackUrl: null });
    const bots = h.driver.started.length;
    for (const caller of [TOKEN_CALLER, OTHER_CALLER, UI_CALLER]) {
      const err = await rejection(h.start({ url, caller }));
      expect(err.status).to.equal(409);
      expect(err.message).to.equal('Meeting URL is already being transcribed');
    }
    // Another spelling of the same meeting is the same meeting.
    const shouted =
      url
        .replace('https://meet.google.com/', 'https://MEET.google.com/')
        .toUpperCase()
        .replace('HTTPS://MEET.GOOGLE.COM', 'https://meet.google.com') + '?authuser=0';
    expect((await rejection(h.start({ url: shouted }))).status).to.equal(409);
    expect(h.driver.started.length).to.equal(bots);
  });

  it('lets exactly one of two simultaneous starts of one URL through', async () => {
    const url = freshMeetUrl();
    const results = await Promise.allSettled([h.start({ url }), h.start({ url, caller: OTHER_CALLER })]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as ServiceError).status).to.equal(409);
  });

  it('stops a live meeting: leaving, final document, ended; the bot leaves; the URL is free again', async () => {
    const { url, meetingId, bot } = await liveAfterSaying(h, 'Hello everyone.');

    const reply = await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    expect(reply).to.deep.equal({ meetingId, status: 'stopping' });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    const tail = h.events(meetingId).slice(-3);
    expect(tail.map((e) => e.type)).to.deep.equal(['meeting_status', 'document_saved', 'meeting_status']);
    expect(tail[0].payload).to.deep.equal({ status: 'leaving', previousStatus: 'live', reason: 'stopped' });
    expect(tail[1].payload).to.deep.include({ segmentsWritten: 1, totalSegments: 1 });
    expect(tail[2].payload).to.deep.equal({ status: 'ended', previousStatus: 'leaving', reason: 'stopped' });
    expect(bot.left).to.equal(true);

    const again = await h.start({ url });
    expect(again.meetingId).to.not.equal(meetingId);
  });

  it('answers 409 Meeting has ended for a stop of an ended meeting, and 404 alike for unknown and foreign ones', async () => {
    const { meetingId } = await h.start();
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    const ended = await rejection(h.request('stop', { caller: TOKEN_CALLER, meetingId }));
    expect([ended.status, ended.message]).to.deep.equal([409, 'Meeting has ended']);

    const live = await h.start();
    const foreign = await rejection(h.request('stop', { caller: OTHER_CALLER, meetingId: live.meetingId }));
    const unknown = await rejection(
      h.request('stop', { caller: OTHER_CALLER, meetingId: 'meeting_1700000000000_AAAAAAAAAAAAAAAA' }),
    );
    const garbage = await rejection(h.request('stop', { caller: OTHER_CALLER, meetingId: '../x' }));
    for (const err of [foreign, unknown, garbage]) expect(err.toWire()).to.deep.equal(unknown.toWire());
    expect([unknown.status, unknown.message]).to.deep.equal([404, 'Not found']);
    // The foreign stop did nothing.
    const record = await h.request<{ status: string }>('get', { caller: TOKEN_CALLER, meetingId: live.meetingId });
    expect(record.status).to.not.be.oneOf(['leaving', 'ended']);
  });

  it('answers 409 Meeting has ended for a stop of a meeting that ended in error, and leaves it in error', async () => {
    const url = freshMeetUrl();
    const { meetingId } = await h.start({ url });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
    const bot = await h.driver.meeting(meetingId);
    bot.fail('browser_crashed', 'scripted crash');
    const failed = await h.waitForEvent(meetingId, (e) => e.payload.status === 'error');
    expect(failed.payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'browser_crashed' });

    const err = await rejection(h.request('stop', { caller: TOKEN_CALLER, meetingId }));
    expect([err.status, err.message]).to.deep.equal([409, 'Meeting has ended']);
    const record = await h.request<{ status: string }>('get', { caller: TOKEN_CALLER, meetingId });
    expect(record.status).to.equal('error');
    expect(statuses(h, meetingId).map((p) => p.status)).to.deep.equal(['joining', 'lobby', 'live', 'error']);
    // The URL of a meeting in error is free again.
    expect((await h.start({ url })).meetingId).to.not.equal(meetingId);
  });

  it('stops a meeting still joining or in the lobby', async () => {
    const waiting = await startHarness(
      {},
      {
        driver: (await import('../../../test/support/scripted-driver.js')).scriptedDriverFactory({ autoAdmit: false }),
      },
    );
    try {
      // Still joining: the bot never reached the lobby.
      const joining = await waiting.start();
      const joiningBot = await waiting.driver.meeting(joining.meetingId);
      await waiting.waitForEvent(joining.meetingId, (e) => e.payload.status === 'joining');
      const record = await waiting.request<{ status: string }>('get', {
        caller: TOKEN_CALLER,
        meetingId: joining.meetingId,
      });
      expect(record.status).to.equal('joining');
      expect(await waiting.request('stop', { caller: TOKEN_CALLER, meetingId: joining.meetingId })).to.deep.equal({
        meetingId: joining.meetingId,
        status: 'stopping',
      });
      const ended = await waiting.waitForEvent(joining.meetingId, (e) => e.payload.status === 'ended');
      expect(ended.payload).to.deep.equal({ status: 'ended', previousStatus: 'leaving', reason: 'stopped' });
      expect(statuses(waiting, joining.meetingId)).to.deep.equal([
        { status: 'joining', previousStatus: null, reason: null },
        { status: 'leaving', previousStatus: 'joining', reason: 'stopped' },
        { status: 'ended', previousStatus: 'leaving', reason: 'stopped' },
      ]);
      expect(joiningBot.left).to.equal(true);
      const after = await waiting.request<{ status: string }>('get', {
        caller: TOKEN_CALLER,
        meetingId: joining.meetingId,
      });
      expect(after.status).to.equal('ended');

      // In the lobby.
      const { meetingId } = await waiting.start();
      const bot = await waiting.driver.meeting(meetingId);
      bot.lobby();
      await waiting.waitForEvent(meetingId, (e) => e.payload.status === 'lobby');
      expect(await waiting.request('stop', { caller: TOKEN_CALLER, meetingId })).to.deep.equal({
        meetingId,
        status: 'stopping',
      });
      await waiting.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
      expect(statuses(waiting, meetingId).map((p) => p.status)).to.deep.equal(['joining', 'lobby', 'leaving', 'ended']);
    } finally {
      await waiting.stop();
    }
  });

  it("lists only the caller's meetings still being transcribed, with current counts", async () => {
    const mine = await h.start({ caller: OTHER_CALLER, title: 'Mine' });
    const theirs = await h.start({ caller: { ...OTHER_CALLER, tokenId: 'tok_delta' } });
    const finished = await h.start({ caller: OTHER_CALLER });
    await h.waitForEvent(mine.meetingId, (e) => e.payload.status === 'live');
    await h.waitForEvent(finished.meetingId, (e) => e.payload.status === 'live');
    await h.request('stop', { caller: OTHER_CALLER, meetingId: finished.meetingId });
    await h.waitForEvent(finished.meetingId, (e) => e.payload.status === 'ended');

    const bot = await h.driver.meeting(mine.meetingId);
    bot.participants(['Ada', 'Grace']);
    bot.segment({ speaker: 'Ada', text: 'First.' });
    bot.segment({ speaker: 'Grace', text: 'Second.' });
    await eventually(async () => {
      const { meetings } = await h.request<{ meetings: Array<Record<string, unknown>> }>('status', {
        caller: OTHER_CALLER,
      });
      return meetings.length === 1 && meetings[0].segmentCount === 2 && meetings[0].participantCount === 2;
    }, 'status with current counts');
    const { meetings } = await h.request<{ meetings: Array<Record<string, unknown>> }>('status', {
      caller: OTHER_CALLER,
    });
    expect(meetings[0]).to.deep.include({
      meetingId: mine.meetingId,
      status: 'live',
      platform: 'google_meet',
      title: 'Mine',
      participantCount: 2,
      segmentCount: 2,
      project: 'api',
      documentPath: mine.documentPath,
    });
    expect(Date.parse(meetings[0].startedAt as string)).to.be.a('number').and.not.NaN;
    expect(meetings.map((m) => m.meetingId)).to.not.include(theirs.meetingId);
  });

  it('answers get for the owner only, with the same 404 for others', async () => {
    const { meetingId } = await h.start({ saveTranscript: false });
    const record = await h.request<Record<string, unknown>>('get', { caller: TOKEN_CALLER, meetingId });
    expect(record).to.include({ meetingId, saveTranscript: false, documentPath: null, project: 'api', endedAt: null });
    const err = await rejection(h.request('get', { caller: UI_CALLER, meetingId }));
    expect([err.status, err.message]).to.deep.equal([404, 'Not found']);
  });
});
