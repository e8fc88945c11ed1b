/**
 * The delivery store's journals on an embedded store on disk: what a meeting folds to, and that
 * journals written before batches became JSON text (entries as arrays) still read after an upgrade.
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
  receivedAt: '2026-11-25T10:00:00.000Z',
});

describe('delivery store journals', () => {
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
    await Promise.all([1, 2].map((s) => deliveries.appendEvent(event(s))));
    const attempt = { at: '2026-11-25T10:00:01.000Z', deliveryId: 'd1', status: 200, error: null, durationMs: 3 };
    await deliveries.appendOutcome({
      meetingId: MEETING,
      sequence: 1,
      type: 'segment_finalized',
      state: 'delivered',
      reason: null,
      attempt,
      firstAttemptAt: attempt.at,
      nextAttemptAt: null,
    });
    const after = new Date().toISOString();
    await store.close();
    store = await openEmbeddedStore({ service: 'webhook-emitter', dataDir: dir });

    const records = await new DeliveryStore(store).readMeeting(MEETING);
    expect(records.map((r) => [r.sequence, r.state, r.body])).to.deep.equal([
      [1, 'delivered', event(1).body],
      [2, 'pending', event(2).body],
    ]);
    expect(records[0].attempts).to.deep.equal([attempt]);
    // Finished when its outcome was written.
    expect(records[0].finishedAt! >= before && records[0].finishedAt! <= after).to.equal(true);
    expect(records[1].finishedAt).to.equal(null);
  });

  it('reads batches written with their entries as arrays (before an upgrade)', async () => {
    const at = '2026-11-20T10:00:00.000Z';
    await store
      .collection('event_batches')
      .insertOne({ _id: '000001700000000-old-000000001', at, meetingIds: [MEETING], events: [event(1), event(2)] });
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

    const records = await new DeliveryStore(store).readMeeting(MEETING);
    expect(records.map((r) => [r.sequence, r.state, r.reason, r.body])).to.deep.equal([
      [1, 'dead_lettered', 'gave up after 9 attempts', event(1).body],
      [2, 'pending', null, event(2).body],
    ]);
    expect(records[0].finishedAt).to.equal('2026-11-20T09:59:59.000Z');
  });
});
