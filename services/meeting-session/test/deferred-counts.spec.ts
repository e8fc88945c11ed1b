/** Count-only record changes written after the reply, on the real embedded store. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '@notetaker/kit';
import { openStore, type Collection, type Store } from '@notetaker/store';
import { DeferredCounts } from '../src/registry/deferred-counts.js';
import type { MeetingDoc } from '../src/registry/records.js';

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

  it('writes after the current turn, once, with the newest counts of the meeting', async () => {
    await record('m1');
    counts.defer('m1', 5, { participantCount: 2, segmentCount: 1, participants: ['Ada', 'Grace'] });
    counts.defer('m1', 9, { participantCount: 2, segmentCount: 3, participants: ['Ada', 'Grace'] });
    await Promise.resolve();
    expect((await read('m1')).segmentCount).to.equal(0);
    await counts.flush();
    expect(await read('m1')).to.include({ segmentCount: 3, participantCount: 2, projectedThrough: 9 });
  });

  it('never writes over a newer state, nor over an ended meeting', async () => {
    await record('newer', { segmentCount: 7, projectedThrough: 20 });
    await record('ended', { status: 'ended', segmentCount: 4 });
    counts.defer('newer', 12, { participantCount: 1, segmentCount: 5, participants: ['Ada'] });
    counts.defer('ended', 30, { participantCount: 1, segmentCount: 9, participants: ['Ada'] });
    await counts.flush();
    expect(await read('newer')).to.include({ segmentCount: 7, projectedThrough: 20 });
    expect(await read('ended')).to.include({ segmentCount: 4 });
  });

  it('drops what waits for a meeting whose newer state is written meanwhile', async () => {
    await record('m2');
    counts.defer('m2', 3, { participantCount: 1, segmentCount: 2, participants: ['Ada'] });
    counts.drop('m2');
    await counts.flush();
    expect((await read('m2')).segmentCount).to.equal(0);
  });

  it('takes counts deferred while a write is under way in the same run', async () => {
    for (const id of ['a', 'b']) await record(id);
    counts.defer('a', 2, { participantCount: 1, segmentCount: 1, participants: ['Ada'] });
    await new Promise((resolve) => setImmediate(resolve));
    counts.defer('b', 2, { participantCount: 1, segmentCount: 1, participants: ['Ada'] });
    await counts.flush();
    expect([(await read('a')).segmentCount, (await read('b')).segmentCount]).to.deep.equal([1, 1]);
  });
});
