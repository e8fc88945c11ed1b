/**
 * The live view's event stream over HTTP against the real stack (scripted meeting platform):
 * every event once and in order, a reconnect with Last-Event-ID that repeats nothing and misses
 * nothing, the end of the stream when the meeting ends, and who may read it.
 */
import { expect } from 'chai';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';
import { WebClient } from './support/web-client.js';

interface SseEvent {
  id: number;
  event: string;
  data: { sequence: number; type: string; payload: Record<string, unknown> };
}

/** Reads the stream until `until` is true of the events so far (or the stream ends). */
async function readEvents(
  baseUrl: string,
  path: string,
  cookie: string,
  until: (events: SseEvent[]) => boolean,
  lastEventId?: number,
): Promise<{ events: SseEvent[]; ended: boolean }> {
  const controller = new AbortController();
  const headers: Record<string, string> = { Cookie: cookie, Accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
  const res = await fetch(`${baseUrl}${path}`, { headers, signal: controller.signal });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { events, ended: true };
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (fields.id) events.push({ id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data) });
      }
      if (until(events)) return { events, ended: false };
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

describe('web application live view events', () => {
  let t: TestStack;
  let platform: ScriptedDriverFactory;
  let owner: WebClient;
  let cookie: string;
  let meetingId: string;

  before(async () => {
    platform = scriptedDriverFactory();
    t = await startTestStack({}, { driverFactory: platform });
    owner = new WebClient(t.baseUrl);
    await owner.setup('owner@example.com', 'a long enough password');
    cookie = `nt_session=${owner.cookies.get('nt_session')}`;
    const started = await owner.post('/meetings', {
      _csrf: await owner.csrf('/meetings'),
      url: 'https://meet.google.com/xyz-abcd-efg',
      title: 'Stream test',
      project: 'streams',
      saveTranscript: 'true',
    });
    expect(started.status).to.equal(303);
    meetingId = started.location!.split('/').pop()!;
  });
  after(() => t.stop());

  it('sends every event once, in sequence, then resumes after Last-Event-ID without repeats', async () => {
    const meeting = await platform.meeting(meetingId);
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

    const last = sequences[sequences.length - 1];
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
    await owner.post(`/meetings/${meetingId}/stop`, { _csrf: await owner.csrf('/meetings') });
    const { events, ended } = await readEvents(t.baseUrl, `/meetings/${meetingId}/events`, cookie, () => false);
    expect(ended).to.equal(true);
    const statuses = events.filter((e) => e.event === 'meeting_status').map((e) => e.data.payload.status);
    expect(statuses[statuses.length - 1]).to.equal('ended');
    expect(events.some((e) => e.event === 'document_saved')).to.equal(true);
  });
});
