/**
 * The live view's event stream over HTTP against the real stack (scripted meeting platform):
 * every event once and in order, a reconnect with Last-Event-ID that repeats nothing and misses
 * nothing, the end of the stream when the meeting ends, and who may read it.
 */
import { expect } from 'chai';
import { signedInStackPerSuite } from './support/signed-in-stack.js';
import { readEvents } from './support/sse.js';
import { WebClient } from './support/web-client.js';

describe('web application live view events', () => {
  const t = signedInStackPerSuite();
  let cookie: string;
  let meetingId: string;

  before(async () => {
    cookie = `nt_session=${t.owner.cookies.get('nt_session')}`;
    const started = await t.owner.submit('/meetings', {
      url: 'https://meet.google.com/xyz-abcd-efg',
      title: 'Stream test',
      project: 'streams',
      saveTranscript: 'true',
    });
    expect(started.status).to.equal(303);
    meetingId = started.location!.split('/').pop()!;
  });

  it('sends every event once, in sequence, then resumes after Last-Event-ID without repeats', async () => {
    const meeting = await t.platform.meeting(meetingId);
    meeting.participants(['Ann']);
    meeting.caption({ captionId: 'c1', speaker: 'Ann', text: 'First' });
    meeting.segment({ speaker: 'Ann', text: 'First words.' });
    const first = await readEvents(t.baseUrl, `/meetings/${meetingId}/events`, cookie, (events) =>
      events.some((e) => e.event === 'segment_finalized'),
    );
    const sequences = first.events.map((e) => e.id);
    expect(sequences).to.deep.equal(sequences.map((_, i) => i + 1));
    expect(first.events.map((e) => e.event)).to.include.members([
      'meeting_status',
      'participant_joined',
      'caption_partial',
    ]);
    const segment = first.events.find((e) => e.event === 'segment_finalized')!;
    expect(segment.data.payload).to.include({ speaker: 'Ann', text: 'First words.' });

    const last = sequences[sequences.length - 1]!;
    meeting.segment({ speaker: 'Ann', text: 'Second words.' });
    const resumed = await readEvents(
      t.baseUrl,
      `/meetings/${meetingId}/events`,
      cookie,
      (events) => events.some((e) => e.data.payload.text === 'Second words.'),
      last,
    );
    expect(resumed.events[0].id).to.equal(last + 1);
    expect(resumed.events.some((e) => e.data.payload.text === 'First words.')).to.equal(false);
  });

  it('opened late while captions pour in: from the first event, each once, no gap at the seam', async () => {
    const meeting = await t.platform.meeting(meetingId);
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const talking = (async () => {
      for (let n = 0; n < 300; n++) {
        meeting.caption({ captionId: 'burst', speaker: 'Ann', text: `burst ${n}` });
        if (n % 5 === 4) await pause(1);
      }
      meeting.segment({ speaker: 'Ann', text: 'Burst over.' });
    })();
    // Views opened at different moments of the burst: each one's backlog ends somewhere else in it.
    const views = [];
    for (let i = 0; i < 4; i++) {
      views.push(
        readEvents(t.baseUrl, `/meetings/${meetingId}/events`, cookie, (events) =>
          events.some((e) => e.data.payload.text === 'Burst over.'),
        ),
      );
      await pause(15);
    }
    await talking;
    for (const { events } of await Promise.all(views)) {
      expect(events.map((e) => e.id)).to.deep.equal(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.event === 'caption_partial' && e.data.payload.captionId === 'burst')).to.not.be
        .empty;
    }
  });

  it('is readable only by the account that started the meeting, and only signed in', async () => {
    const anonymous = await fetch(`${t.baseUrl}/meetings/${meetingId}/events`, {
      headers: { Accept: 'text/event-stream' },
      redirect: 'manual',
    });
    expect(anonymous.status).to.equal(401);
    await t.stack.admin({ command: 'account.create', email: 'other@example.com', password: 'other long password' });
    const other = new WebClient(t.baseUrl);
    await other.signIn('other@example.com', 'other long password');
    const res = await other.get(`/meetings/${meetingId}/events`, { Accept: 'text/event-stream' });
    expect(res.status).to.equal(404);
    expect((await other.get(`/meetings/${meetingId}`)).status).to.equal(404);
  });

  it('ends the stream after the meeting ended', async () => {
    await t.owner.submit(`/meetings/${meetingId}/stop`, {}, '/meetings');
    const { events, ended } = await readEvents(t.baseUrl, `/meetings/${meetingId}/events`, cookie, () => false);
    expect(ended).to.equal(true);
    const statuses = events.filter((e) => e.event === 'meeting_status').map((e) => e.data.payload.status);
    expect(statuses[statuses.length - 1]).to.equal('ended');
    expect(events.some((e) => e.event === 'document_saved')).to.equal(true);
  });
});
