/**
 * The delivery store on an embedded store on disk: what a meeting folds to across a reopen, what
 * closing a lane and pruning drop, and that the journals of earlier versions (batches of JSON
 * text or arrays) still read after an upgrade, also mixed with what is written since.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openEmbeddedStore, type Store } from '@notetaker/store';
import { DeliveryStore, type StoredEvent } from '../src/store/delivery-store.js';

const MEETING = 'meeting_1700000000000_journal001';
const event = (sequence: number): StoredEvent => ({
  meetingId: MEETING,
  sequence,
  type: 'segment_finalized',
  body: JSON.stringify({ meetingId: MEETING, sequence, payload: { text: `line "${sequence}"` } }),
  captionKey: null,
});
const delivered = (sequence: number, at: string) => ({
  meetingId: MEETING,
  sequence,
  type: 'segment_finalized',
  state: 'delivered' as const,
  reason: null,
  attempt: { at, deliveryId: `d${sequence}`, status: 200, error: null, durationMs: 3 },
  firstAttemptAt: at,
  nextAttemptAt: null,
});

describe('delivery store', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journals-'));
    store = await openEmbeddedStore({ service: 'webhook-emitter', dataDir: dir });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('folds events and outcomes back with their exact bytes, across a reopen', async () => {
    const deliveries = new DeliveryStore(store);
    await deliveries.init();
    const before = new Date().toISOString();
    // Out of order, as when a gap is filled: 3 is written before 2.
    await Promise.all([1, 3].map((s) => deliveries.appendEvent(event(s))));
    await deliveries.appendEvent(event(2));
    const outcome = delivered(1, '2026-11-25T10:00:01.000Z');
    await deliveries.appendOutcome(outcome);
    const after = new Date().toISOString();
    await store.close();
    store = await openEmbeddedStore({ service: 'webhook-emitter', dataDir: dir });

    // A new process goes on writing the same meeting after the pages already there.
    const reopened = new DeliveryStore(store);
    await reopened.appendEvent(event(4));
    await reopened.appendOutcome(delivered(2, '2026-11-25T10:00:02.000Z'));
    const records = await reopened.readMeeting(MEETING);
    expect(records.map((r) => [r.sequence, r.state, r.body])).to.deep.equal([
      [1, 'delivered', event(1).body],
      [2, 'delivered', event(2).body],
      [3, 'pending', event(3).body],
      [4, 'pending', event(4).body],
    ]);
    expect(records[0].attempts).to.deep.equal([outcome.attempt]);
    // Received and finished when their pages were written.
    expect(records[0].receivedAt! >= before && records[0].receivedAt! <= after).to.equal(true);
    expect(records[0].finishedAt! >= before && records[0].finishedAt! <= after).to.equal(true);
    expect(records[2].finishedAt).to.equal(null);
  });

  it('reads a meeting back whole when it has more pages than one read returns', async () => {
    const deliveries = new DeliveryStore(store);
    for (let s = 1; s <= 1005; s++) await deliveries.appendEvent(event(s)); // a page each
    const records = await deliveries.readMeeting(MEETING);
    expect(records.map((r) => r.sequence)).to.deep.equal(Array.from({ length: 1005 }, (_, i) => i + 1));
  });

  it('drops the bytes of a closed lane and keeps its log; pruning forgets the meeting', async () => {
    const deliveries = new DeliveryStore(store);
    await deliveries.init();
    await deliveries.callbacks.insertOne({ _id: MEETING, finishedAt: '2026-11-01T00:00:00.000Z' } as never);
    await deliveries.appendEvent(event(1));
    void deliveries.appendOutcome(delivered(1, '2026-11-25T10:00:01.000Z')); // not awaited, as live
    await deliveries.forgetEvents(MEETING);
    expect((await deliveries.readMeeting(MEETING)).map((r) => [r.sequence, r.state, r.body])).to.deep.equal([
      [1, 'delivered', null],
    ]);

    await deliveries.prune('2026-11-02T00:00:00.000Z');
    expect(await deliveries.readMeeting(MEETING)).to.deep.equal([]);
    expect(await deliveries.callbacks.findOne({ _id: MEETING })).to.equal(null);
  });

  it('reads batches written by earlier versions, as arrays or JSON text, with what is written since', async () => {
    const at = '2026-11-20T10:00:00.000Z';
    const received = { receivedAt: '2026-11-20T09:00:00.000Z' };
    await store.collection('event_batches').insertOne({
      _id: '000001700000000-old-000000001',
      at,
      meetingIds: [MEETING],
      events: [{ ...event(1), ...received }],
    });
    await store.collection('event_batches').insertOne({
      _id: '000001700000000-old-000000003',
      at,
      meetingIds: [MEETING],
      events: JSON.stringify([
        { ...event(2), ...received },
        { ...event(3), ...received },
      ]),
    });
    await store.collection('outcome_batches').insertOne({
      _id: '000001700000000-old-000000002',
      at,
      meetingIds: [MEETING],
      entries: [
        {
          meetingId: MEETING,
          sequence: 1,
          type: 'segment_finalized',
          state: 'dead_lettered',
          reason: 'gave up after 9 attempts',
          attempt: null,
          firstAttemptAt: at,
          nextAttemptAt: null,
          at: '2026-11-20T09:59:59.000Z',
        },
      ],
    });

    // After the upgrade: event 2 is delivered and recorded in the outcome log.
    const deliveries = new DeliveryStore(store);
    await deliveries.appendOutcome(delivered(2, '2026-11-25T10:00:02.000Z'));

    const records = await deliveries.readMeeting(MEETING);
    expect(records.map((r) => [r.sequence, r.state, r.reason, r.body, r.receivedAt])).to.deep.equal([
      [1, 'dead_lettered', 'gave up after 9 attempts', event(1).body, received.receivedAt],
      [2, 'delivered', null, event(2).body, received.receivedAt],
      [3, 'pending', null, event(3).body, received.receivedAt],
    ]);
    expect(records[0].finishedAt).to.equal('2026-11-20T09:59:59.000Z');
  });
});
