/**
 * The worker's outbox and the registry's record verb together, on a real embedded store and an
 * in-process bus: events of several meetings go in one request, each is in the log before it is
 * published, in sequence order, the record follows the stream's state, and a meeting another
 * worker owns is fenced (its actor told, nothing of it stored or published).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryBroker, MemoryBus } from '@notetaker/bus';
import { evtMeeting, type EventEnvelope } from '@notetaker/contracts';
import { silentLogger } from '@notetaker/observability';
import { openStore, type Store } from '@notetaker/store';
import { EventStream } from '../src/actor/event-stream.js';
import { protocol, type ActorState } from '../src/protocol.js';
import { startRegistry, type RunningRegistry } from '../src/registry/registry.js';
import { EventLog } from '../src/registry/event-log.js';
import { Records, type MeetingDoc } from '../src/registry/records.js';
import { EventOutbox } from '../src/worker/event-outbox.js';

describe('event outbox and the record verb', () => {
  let dir: string;
  let store: Store;
  let bus: MemoryBus;
  let registry: RunningRegistry;
  let records: Records;
  let outbox: EventOutbox;
  let requests: number;
  const published: Array<{ event: EventEnvelope; stored: boolean }> = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-'));
    store = await openStore({ service: 'meeting-session', dataDir: dir });
    bus = new MemoryBus({ broker: new MemoryBroker() });
    registry = await startRegistry({
      bus,
      store,
      logger: silentLogger(),
      leaseMs: 60_000,
      sweepMs: 60_000,
      retentionMs: 60_000,
      alone: false,
    });
    records = new Records(store);
    const log = new EventLog(store);
    requests = 0;
    published.length = 0;
    bus.subscribe(protocol.record.subject, () => {
      requests++;
    });
    bus.subscribe(evtMeeting('*', '*'), async (data) => {
      const event = data as EventEnvelope;
      const stored = (await log.after(event.meetingId, event.sequence - 1, 1)).some(
        (e) => e.sequence === event.sequence,
      );
      published.push({ event, stored });
    });
    outbox = new EventOutbox({ bus, logger: silentLogger(), workerId: 'worker_a' });
  });
  afterEach(async () => {
    await registry.stop();
    await bus.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  async function meeting(workerId: string): Promise<MeetingDoc> {
    const doc: MeetingDoc = {
      _id: `meeting_${Date.now()}_outbox${(n++).toString().padStart(4, '0')}`,
      ownerKind: 'token',
      ownerId: 'tok_a',
      platform: 'google_meet',
      identityKey: `google_meet:outbox${n}`,
      title: null,
      project: 'api',
      saveTranscript: false,
      documentPath: null,
      status: 'joining',
      reason: null,
      startedAt: new Date().toISOString(),
      endedAt: null,
      participantCount: 0,
      segmentCount: 0,
      participants: [],
      workerId,
    };
    await records.meetings.insertOne(doc);
    return doc;
  }
  function stream(doc: MeetingDoc, state: ActorState, onFenced = () => {}): EventStream {
    return new EventStream({ meetingId: doc._id, outbox, state: () => state, onFenced });
  }
  const live: ActorState = {
    status: 'live',
    participantCount: 2,
    segmentCount: 0,
    participants: ['Ada', 'Linus'],
    recording: null,
    transcriptionSource: 'captions',
  };

  it('stores the events of several meetings in one request, then publishes each, in order', async () => {
    const a = await meeting('worker_a');
    const b = await meeting('worker_a');
    const streams = [stream(a, live), stream(b, live)];
    for (const s of streams) {
      s.emit('meeting_status', { status: 'live', previousStatus: 'joining', reason: null });
      for (let i = 0; i < 3; i++) s.emit('caption_partial', { speaker: 'Ada', text: `word ${i}`, captionId: 'c1' });
    }
    await Promise.all(streams.map((s) => s.drained()));
    await new Promise((resolve) => setImmediate(resolve));

    expect(requests, 'one request for both meetings').to.equal(1);
    expect(
      published.every((p) => p.stored),
      'stored before published',
    ).to.equal(true);
    for (const doc of [a, b]) {
      expect(published.filter((p) => p.event.meetingId === doc._id).map((p) => p.event.sequence)).to.deep.equal([
        1, 2, 3, 4,
      ]);
      expect(await records.meetings.findOne({ _id: doc._id })).to.include({ status: 'live', participantCount: 2 });
    }
  });

  it('fences a meeting another worker owns: its actor is told, nothing of it is stored or published', async () => {
    const theirs = await meeting('worker_b');
    let fenced = false;
    const s = stream(theirs, live, () => (fenced = true));
    s.emit('meeting_status', { status: 'live', previousStatus: 'joining', reason: null });
    await s.drained();
    expect(fenced).to.equal(true);
    expect(published).to.deep.equal([]);
    expect(await new EventLog(store).lastSequence(theirs._id)).to.equal(0);
    expect(await records.meetings.findOne({ _id: theirs._id })).to.include({ status: 'joining', workerId: 'worker_b' });
  });
});
