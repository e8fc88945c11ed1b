/**
 * Worker leases on a real embedded store and an in-process bus: a worker's renewal keeps its
 * meetings, a lapsed lease ends them in `error`/`worker_lost` (written once, after the last stored
 * event, published) by the next sweep, and the full sweep finds what the others cannot; a start
 * that never got a worker is cleared after its grace, and a worker that comes back is told to
 * drop the actors it no longer owns.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryBroker, MemoryBus } from '@notetaker/bus';
import { evtMeeting, type EventEnvelope } from '@notetaker/contracts';
import { silentLogger } from '@notetaker/observability';
import { openStore, type Store } from '@notetaker/store';
import { EventLog } from '../src/registry/event-log.js';
import { endLostMeeting, renewLease, sweep, type LeaseDeps } from '../src/registry/leases.js';
import { Records, type MeetingDoc } from '../src/registry/records.js';

const LEASE_MS = 1000;

describe('worker leases', () => {
  let dir: string;
  let store: Store;
  let bus: MemoryBus;
  let deps: LeaseDeps;
  let published: EventEnvelope[];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leases-'));
    store = await openStore({ service: 'meeting-session', dataDir: dir });
    bus = new MemoryBus({ broker: new MemoryBroker() });
    published = [];
    bus.subscribe(evtMeeting('*', '*'), (data) => {
      published.push(data as EventEnvelope);
    });
    const records = new Records(store);
    await records.init();
    deps = { bus, records, log: new EventLog(store), logger: silentLogger(), leaseMs: LEASE_MS, retentionMs: 60_000 };
  });
  afterEach(async () => {
    await bus.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  async function meeting(fields: Partial<MeetingDoc>): Promise<MeetingDoc> {
    const doc: MeetingDoc = {
      _id: `meeting_${Date.now()}_lease${(n++).toString().padStart(5, '0')}`,
      ownerKind: 'token',
      ownerId: 'tok_a',
      platform: 'google_meet',
      identityKey: `google_meet:${n}`,
      title: null,
      project: 'api',
      saveTranscript: false,
      documentPath: null,
      status: 'live',
      reason: null,
      startedAt: new Date().toISOString(),
      endedAt: null,
      participantCount: 1,
      segmentCount: 0,
      participants: [],
      workerId: 'worker_a',
      ...fields,
    };
    await deps.records.meetings.insertOne(doc);
    await deps.records.claims.insertOne({ _id: doc.identityKey, meetingId: doc._id, claimedAt: doc.startedAt });
    return doc;
  }
  const beat = (workerId: string, meetingIds: string[], leaving = false) =>
    renewLease(deps, { workerId, meetingIds, active: meetingIds.length, capacity: 10, leaving });
  const statusOf = async (id: string) => (await deps.records.meetings.findOne({ _id: id }))!;

  it('keeps the meetings of a renewing worker, and ends those of a lapsed one as worker_lost, once', async () => {
    const kept = await meeting({ workerId: 'worker_a' });
    const lost = await meeting({ workerId: 'worker_b' });
    await deps.log.appendNext(lost._id, 'meeting_status', { status: 'live', previousStatus: 'lobby', reason: null });
    await beat('worker_a', [kept._id]);
    await beat('worker_b', [lost._id], true); // leaving: its lease ends now

    expect(await sweep(deps)).to.equal(1);
    expect(await statusOf(kept._id)).to.include({ status: 'live' });
    expect(await statusOf(lost._id)).to.include({ status: 'error', reason: 'worker_lost' });
    expect(await deps.records.claims.findOne({ _id: lost.identityKey }), 'its URL is free').to.equal(null);
    const last = published.filter((e) => e.meetingId === lost._id).at(-1)!;
    expect(last).to.include({ type: 'meeting_status', sequence: 2 });
    expect(last.payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'worker_lost' });

    expect(await sweep(deps), 'a second sweep finds nothing').to.equal(0);
    expect(await endLostMeeting(deps, lost._id), 'nor does anyone else end it again').to.equal(false);
  });

  it('between full sweeps, ends the meetings of the workers that lapsed since, and leaves the rest to the full one', async () => {
    const lapsed = await meeting({ workerId: 'worker_b' });
    const kept = await meeting({ workerId: 'worker_a' });
    const unknown = await meeting({ workerId: 'worker_never_renewed' });
    const stuck = await meeting({ workerId: null, startedAt: new Date(Date.now() - 120_000).toISOString() });
    await beat('worker_a', [kept._id]);
    await beat('worker_b', [lapsed._id], true);

    expect(await sweep(deps, { full: false })).to.equal(1);
    expect(await statusOf(lapsed._id)).to.include({ status: 'error', reason: 'worker_lost' });
    expect(await statusOf(kept._id)).to.include({ status: 'live' });
    expect(await statusOf(unknown._id), 'no lease of its worker ran out now').to.include({ status: 'live' });
    expect(await sweep(deps, { full: false }), 'a worker lapses once').to.equal(0);

    expect(await sweep(deps)).to.equal(1);
    expect(await statusOf(unknown._id)).to.include({ status: 'error', reason: 'worker_lost' });
    expect(await deps.records.meetings.findOne({ _id: stuck._id })).to.equal(null);
    expect(await statusOf(kept._id)).to.include({ status: 'live' });
  });

  it('tells a worker that comes back to drop the actors it no longer owns', async () => {
    const mine = await meeting({ workerId: 'worker_a' });
    const ended = await meeting({ workerId: 'worker_a', status: 'ended' });
    const moved = await meeting({ workerId: 'worker_c' });
    expect(await beat('worker_a', [mine._id, ended._id, moved._id])).to.deep.equal({ release: [ended._id, moved._id] });
  });

  it('keeps a meeting whose start has not written its worker yet on the worker that names it', async () => {
    // The worker renews between accepting the placement and the start writing its workerId.
    const placing = await meeting({ workerId: null, status: 'joining' });
    expect(await beat('worker_a', [placing._id])).to.deep.equal({ release: [] });
    await deps.records.meetings.deleteOne({ _id: placing._id }); // the start failed after all
    expect(await beat('worker_a', [placing._id])).to.deep.equal({ release: [placing._id] });
  });

  it('clears a start that never got a worker after its grace, freeing the URL', async () => {
    const fresh = await meeting({ workerId: null });
    const stuck = await meeting({ workerId: null, startedAt: new Date(Date.now() - 120_000).toISOString() });
    await sweep(deps);
    expect(await deps.records.meetings.findOne({ _id: fresh._id }), 'still within its grace').to.not.equal(null);
    expect(await deps.records.meetings.findOne({ _id: stuck._id })).to.equal(null);
    expect(await deps.records.claims.findOne({ _id: stuck.identityKey })).to.equal(null);
  });

  it('ends every meeting of every other worker at once when no other can exist (an embedded restart)', async () => {
    const old = await meeting({ workerId: 'worker_old' });
    await beat('worker_old', [old._id]); // a current lease, from a process that is gone
    expect(await sweep(deps, { allOthersGone: 'worker_new' })).to.equal(1);
    expect(await statusOf(old._id)).to.include({ status: 'error', reason: 'worker_lost' });
  });
});
