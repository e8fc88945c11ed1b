/** The registry's event log on the embedded store: group commit across meetings, and its fencing. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { EventEnvelope } from '@notetaker/contracts';
import { openStore, type Store } from '@notetaker/store';
import { EventLog } from '../src/registry/event-log.js';
import { batchOf, type EventBatch } from '../src/protocol.js';

/** A batch of `count` captions from sequence `from`, as the worker sends it (one JSON array text). */
const events = (meetingId: string, from: number, count: number, text = 'hello'): EventBatch =>
  batchOf(
    Array.from({ length: count }, (_, i) => ({
      type: 'caption_partial' as const,
      meetingId,
      sequence: from + i,
      timestamp: new Date(1_700_000_000_000 + from + i).toISOString(),
      payload: { speaker: 'Ada', text, captionId: 'c1', timestamp: '2024-01-01T00:00:00.000Z' },
    })),
  );
const sequences = (list: EventEnvelope[]) => list.map((e) => e.sequence);

describe('event log', () => {
  let dataDir: string;
  let store: Store;
  let log: EventLog;
  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-log-test-'));
    store = await openStore({ service: 'meeting-session', dataDir });
    log = new EventLog(store);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores the batches of many meetings together, each continuing its own stream', async () => {
    const meetings = Array.from({ length: 20 }, (_, i) => `meeting_${i}`);
    expect(await log.appendAll(meetings.map((m) => events(m, 1, 3)))).to.deep.equal(meetings.map(() => true));
    expect(await log.appendAll(meetings.map((m) => events(m, 4, 2)))).to.deep.equal(meetings.map(() => true));
    for (const m of meetings) expect(sequences(await log.after(m, 0, 100))).to.deep.equal([1, 2, 3, 4, 5]);
    expect(sequences(await log.after('meeting_7', 2, 2))).to.deep.equal([3, 4]);
  });

  it('refuses only the batch another writer got ahead of, and stores the others', async () => {
    const meetings = Array.from({ length: 20 }, (_, i) => `meeting_${i}`);
    await log.appendAll(meetings.map((m) => events(m, 1, 2)));
    // Another registry (its own hints) stores sequence 3 of meeting_5 first, with other words.
    const other = new EventLog(store);
    expect(await other.append(events('meeting_5', 3, 1, 'someone else'))).to.equal(true);

    const results = await log.appendAll(meetings.map((m) => events(m, 3, 2)));
    expect(results).to.deep.equal(meetings.map((m) => m !== 'meeting_5'));
    for (const m of meetings) {
      const stored = await log.after(m, 0, 100);
      expect(sequences(stored)).to.deep.equal(m === 'meeting_5' ? [1, 2, 3] : [1, 2, 3, 4]);
    }
    expect((await log.after('meeting_5', 2, 1))[0].payload.text).to.equal('someone else');
  });

  it('takes a retried batch that is stored already as stored, once', async () => {
    const batch = events('meeting_r', 1, 4);
    expect(await log.appendAll([batch])).to.deep.equal([true]);
    const fresh = new EventLog(store); // a restarted registry: no hints
    expect(await fresh.appendAll([batch, events('meeting_s', 1, 1)])).to.deep.equal([true, true]);
    expect(sequences(await fresh.after('meeting_r', 0, 100))).to.deep.equal([1, 2, 3, 4]);
    // A retry that overlaps what is stored: only the new part is added.
    expect(await fresh.appendAll([events('meeting_r', 3, 4)])).to.deep.equal([true]);
    expect(sequences(await fresh.after('meeting_r', 0, 100))).to.deep.equal([1, 2, 3, 4, 5, 6]);
    // Same sequences, different events: not ours.
    expect(await fresh.appendAll([events('meeting_r', 3, 2, 'other words')])).to.deep.equal([false]);
  });

  it('keeps what it stored across a reopen of the store', async () => {
    await log.appendAll([events('meeting_a', 1, 2), events('meeting_b', 1, 1)]);
    await store.close();
    store = await openStore({ service: 'meeting-session', dataDir });
    log = new EventLog(store);
    expect(sequences(await log.after('meeting_a', 0, 10))).to.deep.equal([1, 2]);
    expect(await log.lastSequence('meeting_b')).to.equal(1);
  });
});
