/**
 * Settlement directly, on a real DeliveryStore over an embedded store on disk: what each way an
 * event ends writes, what the lane does, and what survives a reopen.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '@notetaker/observability';
import { openEmbeddedStore, type Store } from '@notetaker/store';
import { arrived } from '../src/delivery/emitter.js';
import { MeetingLane } from '../src/delivery/lane.js';
import { GONE_REASON, Settlement } from '../src/delivery/settlement.js';
import { DeliveryStore, type StoredEvent } from '../src/store/delivery-store.js';

const MEETING = 'meeting_1700000000000_settle0001';

describe('settlement', () => {
  let dir: string;
  let store: Store;
  let deliveries: DeliveryStore;
  let lanes: Map<string, MeetingLane>;
  let settlement: Settlement;
  let lane: MeetingLane;

  /** Stores events 1..n of the meeting as the emitter does and puts them in its lane. */
  const ingest = async (n: number, type = 'segment_finalized') => {
    for (let sequence = 1; sequence <= n; sequence++) {
      const stored: StoredEvent = {
        meetingId: MEETING,
        sequence,
        type,
        body: JSON.stringify({ meetingId: MEETING, sequence }),
        captionKey: null,
      };
      await deliveries.appendEvent(stored);
      lane.add(arrived(stored, Date.now()));
    }
  };
  const states = async () => (await deliveries.readMeeting(MEETING)).map((r) => [r.sequence, r.state, r.reason]);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'settlement-'));
    store = await openEmbeddedStore({ service: 'webhook-emitter', dataDir: dir });
    deliveries = new DeliveryStore(store);
    await deliveries.init();
    await deliveries.callbacks.insertOne({ _id: MEETING, callbackUrl: 'http://127.0.0.1:9/hook' } as never);
    lane = new MeetingLane(MEETING, { url: 'http://127.0.0.1:9/hook', tokenId: 't', origin: 'http://127.0.0.1:9' });
    lanes = new Map([[MEETING, lane]]);
    settlement = new Settlement(deliveries, lanes, silentLogger());
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('moves the head past a delivered and a dead-lettered event, once each, and keeps it across a reopen', async () => {
    await ingest(3);
    const attempt = { at: new Date().toISOString(), deliveryId: 'd1', status: 200, error: null, durationMs: 1 };
    await settlement.settle(lane, lane.head()!, 'delivered', null, attempt);
    expect(lane.nextSequence).to.equal(2);
    const second = lane.head()!;
    await settlement.settle(lane, second, 'dead_lettered', 'retries exhausted', null);
    await settlement.settle(lane, second, 'delivered', null, null); // already settling: ignored
    expect(lane.nextSequence).to.equal(3);
    await deliveries.flush();
    await store.close();

    store = await openEmbeddedStore({ service: 'webhook-emitter', dataDir: dir });
    deliveries = new DeliveryStore(store);
    expect(await states()).to.deep.equal([
      [1, 'delivered', null],
      [2, 'dead_lettered', 'retries exhausted'],
      [3, 'pending', null],
    ]);
  });

  it('on 410 Gone closes the lane and records every unsent event as gone', async () => {
    await ingest(3);
    await settlement.settle(lane, lane.head()!, 'gone', 'receiver answered 410 Gone', null);
    await settlement.markGone(lane);
    expect([lane.closed, lane.gone, lanes.has(MEETING)]).to.deep.equal([true, true, false]);
    await deliveries.flush();
    expect(await states()).to.deep.equal([
      [1, 'gone', 'receiver answered 410 Gone'],
      [2, 'gone', GONE_REASON],
      [3, 'gone', GONE_REASON],
    ]);
    expect((await deliveries.callbacks.findOne({ _id: MEETING }))?.state).to.equal('gone');
  });

  it('marks a gap as missed so the lane goes on, and finishes a lane once', async () => {
    await ingest(1);
    lane.startReceiving(4); // events 2 and 3 never arrived; 4 is on its way
    await settlement.settle(lane, lane.head()!, 'delivered', null, null);
    await settlement.markMissed(lane, 'not in the meeting log');
    expect(lane.nextSequence).to.equal(4);
    await settlement.finish(lane);
    await settlement.finish(lane);
    expect(lanes.has(MEETING)).to.equal(false);
    await deliveries.flush();
    expect((await states()).slice(1)).to.deep.equal([
      [2, 'missed', 'not in the meeting log'],
      [3, 'missed', 'not in the meeting log'],
    ]);
    expect((await deliveries.callbacks.findOne({ _id: MEETING }))?.finishedAt).to.be.a('string');
  });
});
