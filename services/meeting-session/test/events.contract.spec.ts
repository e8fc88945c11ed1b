/** A meeting's event stream: sequence, storage before publishing, the event log, flushes. */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import { EVENT_TYPES, evtMeeting, routes, type EventEnvelope, type ServiceError } from '@notetaker/contracts';
import { protocol } from '../src/protocol.js';
import { scriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { sleep } from '../../../test/support/wait.js';
import { eventually, startHarness, TOKEN_CALLER, type Harness } from './support/harness.js';

const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();

describe('meeting events (bus contract)', () => {
  let h: Harness;
  before(async () => {
    // The last words, finalised by the platform as the bot leaves, must still be stored and sent.
    h = await startHarness(
      {},
      { driver: scriptedDriverFactory({ beforeLeave: (m) => m.segment({ speaker: 'Ada', text: 'Last words.' }) }) },
    );
  });
  after(() => h.stop());

  it('numbers every event of a meeting 1, 2, 3... across every type, and the log holds the same', async () => {
    const { meetingId, bot } = await h.startLive({ recording: 'audio' });
    const base = Date.now();
    bot.audio(1000);
    bot.participants(['Ada', 'Grace']);
    bot.caption({ captionId: 'c1', speaker: 'Ada', text: 'Does' });
    bot.caption({ captionId: 'c1', speaker: 'Ada', text: 'Does anyone' });
    bot.segment({ speaker: 'Ada', text: 'Does anyone have questions?', timestamp: at(base, 0) });
    bot.segment({ speaker: 'Ada', text: 'Moving on then.', timestamp: at(base, 40) }); // a question nobody took up
    bot.participants(['Ada']);
    bot.chat('Ada', 'The slides: https://example.com/slides');
    // The bot speaks (a WAV header is all the scripted call needs), then the call refuses its voice.
    const wav = Buffer.from('RIFF\0\0\0\0WAVEfmt ', 'latin1').toString('base64');
    await h.request('speak', { caller: TOKEN_CALLER, meetingId, audio: wav });
    await h.waitForEvent(meetingId, (e) => e.type === 'speech_finished');
    bot.refuseSpeech = 'the microphone did not turn on';
    await h.request('speak', { caller: TOKEN_CALLER, meetingId, audio: wav });
    await h.waitForEvent(meetingId, (e) => e.type === 'speech_failed');
    await h.waitForEvent(meetingId, (e) => e.type === 'document_saved'); // periodic flush (200 ms here)
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');

    const events = h.events(meetingId);
    expect(events.map((e) => e.sequence)).to.deep.equal(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.type))).to.have.all.keys(...EVENT_TYPES);
    for (const e of events) {
      expect(e.meetingId).to.equal(meetingId);
      expect(e.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const logged = await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 0 });
    expect(logged.events).to.deep.equal(events);
    const tail = await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 5, limit: 2 });
    expect(tail.events.map((e) => e.sequence)).to.deep.equal([6, 7]);
  });

  it('counts published events by type, with their emit-to-publish latency, in /metrics', async () => {
    const read = async () => {
      const text = await h.metrics();
      const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
      return {
        captions: value(/^meeting_events_published_total\{type="caption_partial"[^}]*\} (\d+)$/m),
        statuses: value(/^meeting_events_published_total\{type="meeting_status"[^}]*\} (\d+)$/m),
        timed: value(/^meeting_event_publish_seconds_count\{[^}]*\} (\d+)$/m),
        withinASecond: value(/^meeting_event_publish_seconds_bucket\{le="1"[^}]*\} (\d+)$/m),
      };
    };
    const before = await read();
    const { meetingId, bot } = await h.startLive();
    for (const text of ['one', 'one two', 'one two three']) bot.caption({ captionId: 'm1', speaker: 'Ada', text });
    await h.waitForEvent(meetingId, (e) => e.payload.text === 'one two three');
    const after = await read();
    expect(after.captions - before.captions).to.equal(3);
    expect(after.statuses - before.statuses).to.be.at.least(3); // joining, lobby, live
    expect(after.timed - before.timed).to.be.at.least(6);
    expect(after.withinASecond - before.withinASecond).to.equal(after.timed - before.timed);
  });

  it('refuses a record request whose event range is not 1 to 1000 events, and stores nothing of it', async () => {
    const { meetingId } = await h.startLive();
    const stored = (await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 0 })).events;
    for (const [first, last] of [
      [9, 8],
      [4, 1004],
    ]) {
      const refused = await h.bus
        .request(protocol.record.subject, {
          workerId: 'any',
          meetings: [{ meetingId, first, last, events: '[]' }],
        })
        .then(
          () => null,
          (err: ServiceError) => err,
        );
      expect(refused?.status, `${first}..${last}`).to.equal(400);
    }
    const after = (await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 0 })).events;
    expect(after.length).to.be.at.least(stored.length);
    expect(after.map((e) => e.sequence)).to.deep.equal(after.map((_, i) => i + 1));
  });

  it('carries the documented payloads', async () => {
    const { meetingId, bot } = await h.startLive();
    bot.participants(['Ada', 'Ada', 'Grace', 'Otter.ai']);
    bot.caption({ captionId: 'cap-7', speaker: 'Grace', text: 'Hi', timestamp: '2025-01-02T03:04:05.678Z' });
    bot.segment({ speaker: 'Grace', text: 'Hi there.', timestamp: '2025-01-02T03:04:05.000Z' });
    bot.participants(['Grace', 'Otter.ai']);
    await h.waitForEvent(meetingId, (e) => e.type === 'participant_left' && e.payload.participantCount === 2);
    const of = (type: string) =>
      h
        .events(meetingId)
        .filter((e) => e.type === type)
        .map((e) => e.payload);
    // Another notetaker is a participant like the others, marked as a bot (`bot`, and the `bots` in the meeting now).
    expect(of('participant_joined').map(({ timestamp, ...p }) => p)).to.deep.equal([
      { name: 'Ada', participantCount: 1, bot: false, bots: [] },
      { name: 'Ada', participantCount: 2, bot: false, bots: [] },
      { name: 'Grace', participantCount: 3, bot: false, bots: [] },
      { name: 'Otter.ai', participantCount: 4, bot: true, bots: ['Otter.ai'] },
    ]);
    expect(of('participant_left').map(({ timestamp, ...p }) => p)).to.deep.equal([
      { name: 'Ada', participantCount: 3, bot: false, bots: ['Otter.ai'] },
      { name: 'Ada', participantCount: 2, bot: false, bots: ['Otter.ai'] },
    ]);
    expect(of('caption_partial')).to.deep.equal([
      { speaker: 'Grace', text: 'Hi', captionId: 'cap-7', timestamp: '2025-01-02T03:04:05.678Z', source: 'captions' },
    ]);
    expect(of('segment_finalized')).to.deep.equal([
      { speaker: 'Grace', text: 'Hi there.', timestamp: '2025-01-02T03:04:05.000Z', source: 'captions' },
    ]);
  });

  it('stores every event in the event log before publishing it, so a subscriber can ask for it at once', async () => {
    const checks: Array<Promise<{ event: EventEnvelope; stored: EventEnvelope | null }>> = [];
    // A consumer that, on each event it receives, asks the log for what follows the one before it.
    // It listens before the start, so it sees the first event too.
    const sub = h.bus.subscribe(evtMeeting('*', '*'), (data) => {
      const event = data as EventEnvelope;
      checks.push(
        h.bus
          .request<{ events: EventEnvelope[] }>(routes.meetings.events.subject, {
            meetingId: event.meetingId,
            afterSequence: event.sequence - 1,
            limit: 1,
          })
          .then((reply) => ({ event, stored: reply.events[0] ?? null })),
      );
    });
    try {
      await h.bus.flush();
      const { meetingId, bot } = await h.startLive();
      bot.participants(['Ada', 'Grace']);
      for (let i = 0; i < 10; i++) {
        bot.caption({ captionId: `c${i}`, speaker: 'Ada', text: `Partial ${i}` });
        bot.segment({ speaker: i % 2 ? 'Grace' : 'Ada', text: `Sentence ${i}.` });
      }
      bot.participants(['Ada']);
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      const ended = await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
      const mine = async () => (await Promise.all(checks)).filter((c) => c.event.meetingId === meetingId);
      await eventually(async () => (await mine()).length >= ended.sequence, `${ended.sequence} events seen`);
      const results = await mine();
      expect(results.map((r) => r.event.sequence)).to.deep.equal(results.map((_, i) => i + 1));
      expect(new Set(results.map((r) => r.event.type))).to.include.all.keys(
        'meeting_status',
        'caption_partial',
        'segment_finalized',
        'participant_joined',
        'participant_left',
        'document_saved',
      );
      const notYetStored = results
        .filter((r) => !isDeepStrictEqual(r.stored, r.event))
        .map((r) => `${r.event.sequence}:${r.event.type} (log had ${JSON.stringify(r.stored)})`);
      expect(notYetStored, 'events published before the log held them').to.deep.equal([]);
    } finally {
      await sub.unsubscribe();
    }
  });

  it('stores each finalized segment in transcript-store before its event is published', async () => {
    const { meetingId, bot } = await h.startLive();
    const checks: Array<Promise<boolean>> = [];
    // A consumer reacting to segment_finalized must already find the segment stored.
    const sub = h.bus.subscribe(`evt.meeting.${meetingId}.segment_finalized`, (data) => {
      const event = data as EventEnvelope;
      checks.push(
        h.bus
          .request<{ segments: Array<{ text: string }> }>(routes.transcripts.segments.subject, { meetingId })
          .then((r) => r.segments.some((s) => s.text === event.payload.text)),
      );
    });
    for (let i = 0; i < 20; i++) bot.segment({ speaker: 'Ada', text: `Sentence ${i}.` });
    await eventually(() => checks.length === 20, '20 segment events');
    expect(await Promise.all(checks)).to.deep.equal(Array(20).fill(true));
    await sub.unsubscribe();
  });

  it('flushes while there are new segments and once at the end, and keeps the last words', async () => {
    const { meetingId, bot } = await h.startLive();
    bot.segment({ speaker: 'Ada', text: 'One.' });
    const first = await h.waitForEvent(meetingId, (e) => e.type === 'document_saved');
    expect(first.payload).to.deep.include({ totalSegments: 1 });
    expect(first.payload.documentPath).to.match(/^deployed-md-files\/docs\/api\/meetings\//);
    // Nothing new: no more periodic flushes.
    await sleep(600);
    expect(h.events(meetingId).filter((e) => e.type === 'document_saved')).to.have.length(1);

    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    const types = h.events(meetingId).map((e) => e.type);
    const saved = h.events(meetingId).filter((e) => e.type === 'document_saved');
    expect(saved.at(-1)!.payload).to.deep.include({ totalSegments: 2 });
    // leaving -> the segment the platform finalised on the way out -> final flush -> ended.
    expect(types.slice(-4)).to.deep.equal(['meeting_status', 'segment_finalized', 'document_saved', 'meeting_status']);
    const segments = await h.bus.request<{ segments: Array<{ text: string }> }>(routes.transcripts.segments.subject, {
      meetingId,
    });
    expect(segments.segments.map((s) => s.text)).to.deep.equal(['One.', 'Last words.']);
  });

  it('keeps a sentence continued in a new caption block as two segments and two events, one paragraph', async () => {
    const { meetingId, bot } = await h.startLive();
    const said = ['We should hold the launch since it blocks the', 'release and the finance team needs a week.'];
    for (const text of said) bot.segment({ speaker: 'Ada', text });
    await h.waitForEvent(meetingId, (e) => e.type === 'document_saved' && e.payload.totalSegments === 2);
    const finalized = h.events(meetingId).filter((e) => e.type === 'segment_finalized');
    expect(finalized.map((e) => e.payload.text)).to.deep.equal(said);
    const stored = await h.bus.request<{ segments: Array<{ text: string }> }>(routes.transcripts.segments.subject, {
      meetingId,
    });
    expect(stored.segments.map((s) => s.text)).to.deep.equal(said);
    const document = await h.bus.request<{ content: string }>(routes.transcripts.document.subject, { meetingId });
    expect(document.content).to.match(/\n\*\*Ada\*\* \(\d\d:\d\d:\d\d\): ([^\n]*)\n\n$/);
    expect(document.content.split('**Ada**')).to.have.length(2);
    expect(document.content).to.contain(`: ${said.join(' ')}\n\n`);
  });

  it('never flushes or saves a document when saveTranscript is false, and still streams every event', async () => {
    const { meetingId, bot, documentPath } = await h.startLive({ saveTranscript: false });
    expect(documentPath).to.equal(null);
    bot.segment({ speaker: 'Ada', text: 'Off the record.' });
    await h.waitForEvent(meetingId, (e) => e.type === 'segment_finalized');
    // Two flush intervals for a periodic flush to happen, were there one.
    await sleep(400);
    await h.request('stop', { caller: TOKEN_CALLER, meetingId });
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
    expect(h.events(meetingId).map((e) => e.type)).to.not.include('document_saved');
  });

  it('raises coaching insights from finalized segments', async () => {
    const { meetingId, bot } = await h.startLive();
    const base = Date.now() - 10 * 60_000;
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    // Ada talks for two minutes straight, fast; Grace says a little.
    bot.segment({ speaker: 'Grace', text: 'Go ahead.', timestamp: at(base, 0) });
    for (let s = 0; s < 8; s++) bot.segment({ speaker: 'Ada', text: words(50), timestamp: at(base, 5 + s * 15) });
    const monologue = await h.waitForEvent(
      meetingId,
      (e) => e.type === 'coach_insight' && e.payload.category === 'monologue',
    );
    // No model configured here: the default coach is the rules alone.
    expect(monologue.payload).to.deep.include({ speaker: 'Ada', source: 'rules' });
    expect(monologue.payload.message).to.be.a('string').and.not.empty;
    expect(monologue.payload.metrics).to.have.property('turnSeconds').above(90);
    await h.waitForEvent(meetingId, (e) => e.type === 'coach_insight' && e.payload.category === 'pace');
    const categories = h
      .events(meetingId)
      .filter((e) => e.type === 'coach_insight')
      .map((e) => e.payload.category);
    expect(categories).to.include.members(['talk_balance', 'pace', 'monologue']);
  });
});
