/**
 * A recording finished after its meeting ended, on the registry's side (registry/recording-saved.ts,
 * leases.ts), with transcript-store for real on an in-process bus and a real embedded store:
 * `recording_saved` is appended after the meeting's last event exactly once, whoever reports it
 * (the worker whose spool drained, or the sweep for a worker that is gone); a live meeting's end
 * says it instead; the sweep finishes a lost meeting's file up to the meeting's end (`lostAtMs`)
 * and leaves alone a file this process's own worker still holds audio of.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryBroker, MemoryBus, call } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { evtMeeting, routes, type EventEnvelope, type RecordingInfo } from '@notetaker/contracts';
import { silentLogger } from '@notetaker/observability';
import { openStore, type Store } from '@notetaker/store';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { EventLog } from '../src/registry/event-log.js';
import { endLostMeeting, renewLease, sweep, type LeaseDeps } from '../src/registry/leases.js';
import { recordingSaved } from '../src/registry/recording-saved.js';
import { Records, type MeetingDoc } from '../src/registry/records.js';
import { RecordingTimeline } from '../src/recording/timeline.js';
import { startInProcess, type InProcessService } from './support/in-process.js';
import { RecordingRequests } from './support/recordings.js';

describe('recording_saved after the end (registry)', () => {
  let dir: string;
  let store: Store;
  let bus: MemoryBus;
  let transcripts: InProcessService;
  let deps: LeaseDeps;
  let published: EventEnvelope[];
  let requests: RecordingRequests;
  let spooled: Set<string>;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recording-saved-'));
    store = await openStore({ service: 'meeting-session', dataDir: dir });
    bus = new MemoryBus({ broker: new MemoryBroker() });
    transcripts = await startInProcess(transcriptStoreService(), bus, loadBaseConfig({ DATA_DIR: dir }));
    published = [];
    bus.subscribe(evtMeeting('*', '*'), (data) => {
      published.push(data as EventEnvelope);
    });
    requests = new RecordingRequests(bus);
    spooled = new Set();
    const records = new Records(store);
    await records.init();
    deps = {
      bus,
      records,
      log: new EventLog(store),
      logger: silentLogger(),
      leaseMs: 1000,
      retentionMs: 60_000,
      spooledHere: (id) => spooled.has(id),
    };
  });
  afterEach(async () => {
    await requests.stop();
    await transcripts.stop();
    await bus.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  /** A meeting whose worker stored the file's first pages, its record saying it records. */
  async function recorded(fields: Partial<MeetingDoc>): Promise<MeetingDoc> {
    const id = `meeting_${Date.now()}_saved${(n++).toString().padStart(6, '0')}`;
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    const headers = new RecordingTimeline(Date.parse(startedAt), 3).headers();
    await call(bus, routes.recordings.append, {
      meetingId: id,
      startedAt,
      sequence: 0,
      offset: 0,
      data: headers.toString('base64'),
      durationMs: 0,
    });
    const recording: RecordingInfo = {
      status: 'recording',
      format: 'audio/ogg',
      bytes: headers.length,
      durationMs: 0,
      startedAt,
      url: `/api/v1/meetings/${id}/recording`,
      gaps: [],
      pendingBytes: 5000,
    };
    const doc: MeetingDoc = {
      _id: id,
      ownerKind: 'token',
      ownerId: 'tok_a',
      platform: 'google_meet',
      identityKey: `google_meet:saved${n}`,
      title: null,
      project: 'api',
      saveTranscript: false,
      documentPath: null,
      status: 'ended',
      reason: 'stopped',
      startedAt,
      endedAt: new Date(Date.now() - 10_000).toISOString(),
      participantCount: 1,
      segmentCount: 0,
      participants: [],
      workerId: 'worker_a',
      recording,
      ...fields,
    };
    await deps.records.meetings.insertOne(doc);
    await deps.log.appendNext(id, 'meeting_status', { status: doc.status, previousStatus: 'leaving', reason: null });
    return doc;
  }
  const savedEvents = (id: string) => published.filter((e) => e.meetingId === id && e.type === 'recording_saved');
  const finishedInfo = async (id: string) => (await call(bus, routes.recordings.finish, { meetingId: id }))!;

  it("appends the worker's late recording_saved after the end once, and updates the record", async () => {
    const doc = await recorded({});
    const info = await finishedInfo(doc._id);
    const request = { meetingId: doc._id, workerId: 'worker_a', recording: info };
    await recordingSaved(deps, request);
    await recordingSaved(deps, request); // a report sent again
    const saved = savedEvents(doc._id);
    expect(saved).to.have.length(1);
    expect(saved[0]).to.include({ sequence: 2 });
    expect(saved[0].payload).to.include({ status: info.status, bytes: info.bytes });
    expect((await deps.records.meetings.findOne({ _id: doc._id }))!.recording).to.include({ status: info.status });
    // The sweep finds nothing left to finish.
    await sweep(deps);
    expect(savedEvents(doc._id)).to.have.length(1);
  });

  it('says nothing for a live meeting: its own end carries the recording', async () => {
    const doc = await recorded({ status: 'live', endedAt: null, reason: null });
    await recordingSaved(deps, { meetingId: doc._id, workerId: 'worker_a', recording: await finishedInfo(doc._id) });
    expect(savedEvents(doc._id)).to.deep.equal([]);
  });

  it("finishes the file of an ended meeting whose worker is gone, unless this process's worker still spools it", async () => {
    const gone = await recorded({ workerId: 'worker_gone' });
    const held = await recorded({ workerId: 'worker_gone' });
    const alive = await recorded({ workerId: 'worker_alive' });
    spooled.add(held._id);
    await renewLease(deps, { workerId: 'worker_alive', meetingIds: [], active: 0, capacity: 10 });
    await sweep(deps);
    expect(savedEvents(gone._id)).to.have.length(1);
    expect((await deps.records.meetings.findOne({ _id: gone._id }))!.recording?.status).to.not.equal('recording');
    // What storage does not hold up to the meeting's end is worker_lost.
    const lostAtMs = requests.finishes(gone._id)[0].lostAtMs!;
    expect(lostAtMs).to.equal(Date.parse(gone.endedAt!) - Date.parse(gone.recording!.startedAt));
    expect(savedEvents(held._id), 'the worker here sends its spool and finishes it').to.deep.equal([]);
    expect(savedEvents(alive._id), 'a live worker is still sending it').to.deep.equal([]);
    await sweep(deps);
    expect(savedEvents(gone._id), 'once').to.have.length(1);
  });

  it("passes a lost live meeting's end as lostAtMs", async () => {
    const doc = await recorded({ status: 'live', endedAt: null, reason: null, workerId: 'worker_gone' });
    const before = Date.now();
    expect(await endLostMeeting(deps, doc._id)).to.equal(true);
    const lostAtMs = requests.finishes(doc._id)[0].lostAtMs!;
    const startedAt = Date.parse(doc.recording!.startedAt);
    expect(lostAtMs).to.be.within(before - startedAt, Date.now() - startedAt);
    const types = published.filter((e) => e.meetingId === doc._id).map((e) => e.type);
    expect(types).to.deep.equal(['recording_saved', 'meeting_status']);
  });
});
