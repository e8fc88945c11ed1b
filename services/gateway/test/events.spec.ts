/**
 * GET /api/v1/meetings/:meetingId/events on the real stack: a meeting started over REST is run by
 * meeting-session's actor against the scripted meeting platform (the only stand-in), its callbacks
 * go to a real local receiver, and the route answers the same envelopes by sequence: paged with
 * nextAfter, filtered by type, for the owner only, with `ended` once the meeting is over and its
 * recording, if any, is stored (its recording_saved may come after the final status).
 */
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes, type EventEnvelope } from '@notetaker/contracts';
import { eventually } from '../../../test/support/wait.js';
import { stackWithReceiverPerSuite } from './support/meeting-with-receiver.js';

interface Page {
  meetingId: string;
  events: EventEnvelope[];
  nextAfter: number;
  ended: boolean;
}

describe('meeting events REST (catch-up by sequence)', function () {
  this.timeout(30_000);
  const stack = stackWithReceiverPerSuite();
  let meetingId: string;

  before(async () => {
    const { meeting, ...started } = await stack.startMeeting();
    meetingId = started.meetingId;
    meeting.participants(['Ada', 'Grace']);
    meeting.caption({ captionId: 'c1', speaker: 'Ada', text: 'Hello' });
    meeting.caption({ captionId: 'c1', speaker: 'Ada', text: 'Hello there' });
    meeting.segment({ speaker: 'Ada', text: 'Hello there.' });
    meeting.caption({ captionId: 'c2', speaker: 'Grace', text: 'Hi' });
    meeting.segment({ speaker: 'Grace', text: 'Hi Ada.' });
    await stack.rx.waitFor(
      () =>
        stack.rx.events().filter((c) => c.meetingId === meetingId && c.eventType === 'segment_finalized').length === 2,
      10_000,
      'both segments delivered',
    );
  });

  const eventsOf = (query = '', apiKey = stack.owner.apiKey, id = meetingId) =>
    stack.t.api(`/meetings/${id}/events${query}`, { apiKey });
  async function page(query = ''): Promise<Page> {
    const res = await eventsOf(query);
    expect(res.status, await res.clone().text()).to.equal(200);
    return (await res.json()) as Page;
  }
  const delivered = () =>
    stack.rx
      .events()
      .filter((c) => c.meetingId === meetingId)
      .map((c) => c.json as EventEnvelope);

  it('answers every event from the first, each exactly the envelope its callback carried', async () => {
    const all = await page();
    expect(all.meetingId).to.equal(meetingId);
    expect(all.ended).to.equal(false);
    expect(all.events.map((e) => e.sequence)).to.deep.equal(all.events.map((_, i) => i + 1));
    expect(all.nextAfter).to.equal(all.events.length);
    // caption_partial is part of the stream unless filtered out.
    expect(all.events.map((e) => e.type)).to.include.members([
      'meeting_status',
      'participant_joined',
      'caption_partial',
      'segment_finalized',
    ]);
    const received = delivered();
    expect(all.events.slice(0, received.length)).to.deep.equal(received);
    for (const event of all.events)
      expect(Object.keys(event).sort()).to.deep.equal(['meetingId', 'payload', 'sequence', 'timestamp', 'type']);
  });

  it('pages with limit and nextAfter to the same stream, then answers an empty page at the end', async () => {
    const whole = (await page()).events;
    const paged: EventEnvelope[] = [];
    let after = 0;
    for (let n = 0; n < 50; n++) {
      const next = await page(`?after=${after}&limit=2`);
      expect(next.events.length).to.be.at.most(2);
      if (next.events.length === 0) {
        expect(next.nextAfter).to.equal(after);
        break;
      }
      paged.push(...next.events);
      expect(next.nextAfter).to.equal(next.events.at(-1)!.sequence);
      after = next.nextAfter;
    }
    expect(paged).to.deep.equal(whole);
    expect((await page(`?after=3`)).events).to.deep.equal(whole.slice(3));
  });

  it('filters by type, nextAfter passing the events it skipped', async () => {
    const whole = (await page()).events;
    const wanted = whole.filter((e) => e.type === 'segment_finalized' || e.type === 'participant_joined');
    const filtered = await page('?types=segment_finalized,participant_joined');
    expect(filtered.events).to.deep.equal(wanted);
    // Scanned to the end of the log: the next request starts after the last event, not the last kept.
    expect(filtered.nextAfter).to.equal(whole.at(-1)!.sequence);
    expect((await page('?types=caption_partial')).events.every((e) => e.type === 'caption_partial')).to.equal(true);

    const segments = whole.filter((e) => e.type === 'segment_finalized');
    const first = await page('?types=segment_finalized&limit=1');
    expect(first.events).to.deep.equal([segments[0]]);
    expect(first.nextAfter).to.equal(segments[0].sequence);
    const second = await page(`?types=segment_finalized&limit=1&after=${first.nextAfter}`);
    expect(second.events).to.deep.equal([segments[1]]);
    const none = await page(`?types=segment_finalized&after=${second.nextAfter}`);
    expect(none.events).to.deep.equal([]);
    expect(none.nextAfter).to.equal(whole.at(-1)!.sequence);
  });

  it('answers 404 Not found to another key, for an unknown meeting and for a malformed id', async () => {
    for (const res of [
      await eventsOf('', stack.other.apiKey),
      await eventsOf('', stack.owner.apiKey, `meeting_${Date.now()}_abcdefghij`),
      await eventsOf('', stack.owner.apiKey, 'not-a-meeting'),
    ]) {
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ error: 'Not found' });
    }
  });

  it('answers 400 naming the bad field (after, limit, types, unknown ones), and 401 without a key', async () => {
    const cases: Array<[string, string]> = [
      ['?after=-1', 'after must not be negative'],
      ['?after=abc', 'after must be a number'],
      ['?after=1.5', 'after must be an integer'],
      ['?limit=0', 'limit must be at least 1'],
      ['?limit=1001', 'limit must be at most 1000'],
      ['?limit=many', 'limit must be a number'],
      ['?types=segment_finalized,speech', 'types must be a comma-separated list of event types'],
      ['?types=', 'types must be a comma-separated list of event types'],
      ['?from=3', 'Unknown field: from'],
    ];
    for (const [query, message] of cases) {
      const res = await eventsOf(query);
      expect(res.status, query).to.equal(400);
      expect(((await res.json()) as { error: string }).error, query).to.have.string(message);
    }
    expect((await stack.t.api(`/meetings/${meetingId}/events`)).status).to.equal(401);
  });

  it('says ended once the meeting is over, and the page after the last event is empty', async () => {
    const live = await page();
    expect(live.ended).to.equal(false);
    const stop = await stack.t.api('/meetings/stop', {
      method: 'POST',
      apiKey: stack.owner.apiKey,
      json: { meetingId },
    });
    expect(stop.status).to.equal(200);
    const final = await eventually(
      async () => {
        const read = await page();
        if (!read.ended) throw new Error(`not ended: ${JSON.stringify(read.events.at(-1))}`);
        return read;
      },
      'ended',
      10_000,
    );
    expect(final.events.at(-1)).to.deep.include({ type: 'meeting_status', meetingId });
    expect(final.events.at(-1)!.payload.status).to.equal('ended');
    const tail = await page(`?after=${final.nextAfter}`);
    expect(tail).to.deep.equal({ meetingId, events: [], nextAfter: final.nextAfter, ended: true });
    // Everything the receiver was sent, exactly, is what the route answers.
    await stack.rx.waitFor(
      () =>
        stack.rx
          .events()
          .some((c) => c.meetingId === meetingId && (c.json as EventEnvelope).payload.status === 'ended'),
      10_000,
      'the ended status delivered',
    );
    expect(final.events).to.deep.equal(delivered());
  });

  it('does not say ended while the recording is still being stored after the final status, then does', async () => {
    const { meetingId: recorded } = await stack.startMeeting();
    const read = async (after = 0): Promise<Page> =>
      (await (await eventsOf(`?after=${after}`, stack.owner.apiKey, recorded)).json()) as Page;
    await eventually(async () => (await read()).events.some((e) => e.payload.status === 'live'), 'live', 10_000);
    // The bot's audio, as the worker appends it; its worker still holds the rest after the end.
    const bus = stack.t.stack.bus;
    await call(bus, routes.recordings.append, {
      meetingId: recorded,
      startedAt: new Date().toISOString(),
      offset: 0,
      data: Buffer.from('OggS recorded audio').toString('base64'),
      durationMs: 1000,
    });
    const stop = await stack.t.api('/meetings/stop', {
      method: 'POST',
      apiKey: stack.owner.apiKey,
      json: { meetingId: recorded },
    });
    expect(stop.status).to.equal(200);
    const final = await eventually(
      async () => {
        const all = await read();
        return all.events.at(-1)?.payload.status === 'ended' && all;
      },
      'the final status in the log',
      10_000,
    );
    // Over, and the page after the final status is empty; yet the recording_saved is still to come.
    const waiting = await read(final.nextAfter);
    expect(waiting).to.deep.equal({ meetingId: recorded, events: [], nextAfter: final.nextAfter, ended: false });
    expect(final.ended).to.equal(false);

    await call(bus, routes.recordings.finish, { meetingId: recorded });
    expect(await read(final.nextAfter)).to.deep.equal({
      meetingId: recorded,
      events: [],
      nextAfter: final.nextAfter,
      ended: true,
    });
  });
});
