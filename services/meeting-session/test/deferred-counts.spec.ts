/** Count-only record changes written just after the reply, on the real embedded store. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '@notetaker/observability';
import { openStore, type Collection, type Store } from '@notetaker/store';
import { DeferredCounts } from '../src/registry/deferred-counts.js';
import type { MeetingDoc } from '../src/registry/records.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('deferred meeting counts', () => {
  let dir: string;
  let store: Store;
  let meetings: Collection<MeetingDoc>;
  let counts: DeferredCounts;

  const record = (id: string, extra: Partial<MeetingDoc> = {}) =>
    meetings.insertOne({
      _id: id,
      status: 'live',
      participantCount: 1,
      segmentCount: 0,
      participants: ['Ada'],
      ...extra,
    } as MeetingDoc);
  const read = async (id: string) => (await meetings.findOne({ _id: id }))!;
  const seen = (segmentCount: number) => ({ participantCount: 2, segmentCount, participants: ['Ada', 'Grace'] });

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deferred-counts-'));
    store = await openStore({ service: 'meeting-session', dataDir: dir });
    meetings = store.collection<MeetingDoc>('meetings');
    counts = new DeferredCounts(meetings, silentLogger());
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes from the next turn on, the newest counts of each meeting once', async () => {
    await record('m1');
    await record('m2');
    counts.defer('m1', 5, seen(1));
    counts.defer('m2', 4, seen(1));
    counts.defer('m1', 9, seen(3));
    await Promise.resolve();
    expect((await read('m1')).segmentCount).to.equal(0);
    await nextTurn();
    await counts.flush();
    expect(await read('m1')).to.include({ segmentCount: 3, participantCount: 2, projectedThrough: 9 });
    expect(await read('m2')).to.include({ segmentCount: 1, projectedThrough: 4 });
  });

  it('never writes over a newer state; a meeting the lease sweep ended still gets its last counts', async () => {
    await record('newer', { segmentCount: 7, projectedThrough: 20 });
    await record('ended by its worker', { status: 'ended', segmentCount: 9, projectedThrough: 31 });
    await record('ended by the sweep', { status: 'error', segmentCount: 4, projectedThrough: 10 });
    counts.defer('newer', 12, seen(5));
    counts.defer('ended by its worker', 30, seen(8));
    counts.defer('ended by the sweep', 14, seen(6));
    await counts.flush();
    expect(await read('newer')).to.include({ segmentCount: 7, projectedThrough: 20 });
    expect(await read('ended by its worker')).to.include({ segmentCount: 9, projectedThrough: 31 });
    expect(await read('ended by the sweep')).to.include({ status: 'error', segmentCount: 6, projectedThrough: 14 });
  });

  it('drops what waits for a meeting whose newer state is written meanwhile', async () => {
    await record('m3');
    counts.defer('m3', 3, seen(2));
    counts.drop('m3');
    await nextTurn();
    await counts.flush();
    expect((await read('m3')).segmentCount).to.equal(0);
  });

  it('writes everything waiting at once on flush (the registry stopping)', async () => {
    await record('m4');
    counts.defer('m4', 2, seen(1));
    await counts.flush();
    expect((await read('m4')).segmentCount).to.equal(1);
  });
});
