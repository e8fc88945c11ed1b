/**
 * The recordings as transcript-store keeps them (src/recordings/library.ts), on a real store and
 * each storage (files; a local S3 server): states with one meaning each, gaps, late retries, the
 * sweep. Then what needs storage to misbehave (S3 behind the fault proxy): a finish storage
 * refuses, a hung store and the bounded chains. Then the writer leases of two replicas.
 */
import { expect } from 'chai';
import { silentLogger } from '@notetaker/observability';
import type { Collection, Store } from '@notetaker/store';
import { RecordingLibrary, type RecordingLibraryOptions } from '../src/recordings/library.js';
import type { RecordingStorage } from '../src/recordings/port.js';
import type { RecordingDoc } from '../src/recordings/record.js';
import { RecordingSweep } from '../src/recordings/sweep.js';
import { RecordingWriters } from '../src/recordings/writers.js';
import type { BusyReason } from '../src/recordings/chains.js';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.js';
import { rejection } from '../../../test/support/rejection.js';
import { sleep } from '../../../test/support/wait.js';
import { readAll, recordingBytes } from './support/recording-bytes.js';
import { appendRequest, batches, filesPlace, s3Place, tempStore, type StoragePlace } from './support/recordings.js';
import { startS3Endpoint, type S3Endpoint } from './support/s3-server.js';

const KiB = 1024;

describe('recording library', function () {
  this.timeout(60_000);
  let endpoint: S3Endpoint;
  before(async () => {
    endpoint = await startS3Endpoint();
  });
  after(async () => {
    await endpoint?.stop();
  });

  /** What one test opened, closed after it. */
  let toClose: Array<() => Promise<void> | void>;
  beforeEach(() => {
    toClose = [];
  });
  afterEach(async () => {
    for (const close of toClose.reverse()) await close();
  });

  async function sharedStore(): Promise<Store> {
    const { store, dispose } = await tempStore();
    toClose.push(dispose);
    return store;
  }

  async function libraryOn(
    store: Store,
    storage: RecordingStorage,
    options: Partial<RecordingLibraryOptions> = {},
  ): Promise<RecordingLibrary> {
    const library = new RecordingLibrary(store, storage, silentLogger(), { replicaId: 'replica-a', ...options });
    await library.init();
    toClose.push(async () => {
      await library.close();
      await storage.close();
    });
    return library;
  }

  async function fileOf(storage: RecordingStorage, meetingId: string): Promise<Buffer> {
    const size = (await storage.size(`${meetingId}.ogg`)) ?? 0;
    return size === 0 ? Buffer.alloc(0) : readAll(await storage.read(`${meetingId}.ogg`, 0, size - 1));
  }

  const places: Array<{ label: string; make: () => StoragePlace }> = [
    { label: 'files', make: filesPlace },
    { label: 'S3', make: () => s3Place(endpoint) },
  ];

  for (const { label, make } of places) {
    describe(`on ${label}`, () => {
      let storage: RecordingStorage;
      let library: RecordingLibrary;
      let store: Store;
      beforeEach(async () => {
        const place = make();
        toClose.push(() => place.dispose());
        store = await sharedStore();
        storage = place.open();
        library = await libraryOn(store, storage);
      });

      async function record(meetingId: string, count: number): Promise<number> {
        let bytes = 0;
        for (const batch of batches(count, [3 * KiB, 5 * KiB])) {
          ({ bytes } = await library.append(appendRequest(meetingId, batch)));
        }
        return bytes;
      }

      it('saves a complete file: saved, no gaps, the same answer when finished again', async () => {
        const bytes = await record('m-saved', 4);
        expect(bytes).to.equal(16 * KiB);
        expect(await library.get('m-saved')).to.include({ status: 'recording', bytes, durationMs: 4000 });
        const saved = await library.finish({ meetingId: 'm-saved' });
        expect(saved).to.deep.include({ status: 'saved', bytes, durationMs: 4000, gaps: [] });
        expect(await library.finish({ meetingId: 'm-saved' })).to.deep.equal(saved);
        expect(await library.get('m-saved')).to.deep.equal(saved);
        expect((await fileOf(storage, 'm-saved')).equals(recordingBytes(0, bytes))).to.equal(true);
        expect(await storage.stat('m-saved.ogg')).to.deep.equal({ size: bytes, complete: true });
      });

      it('is incomplete with the gaps a finish gives, merged and kept once when finished again', async () => {
        await record('m-gaps', 3);
        const first = await library.finish({
          meetingId: 'm-gaps',
          gaps: [
            { startMs: 9000, endMs: 12_000, reason: 'spool_full' },
            { startMs: 1000, endMs: 2000, reason: 'unreadable_audio' },
          ],
        });
        expect(first).to.deep.include({
          status: 'incomplete',
          gaps: [
            { startMs: 1000, endMs: 2000, reason: 'unreadable_audio' },
            { startMs: 9000, endMs: 12_000, reason: 'spool_full' },
          ],
        });
        // A retry with the same gaps, one overlapping a known one, and one new.
        const again = await library.finish({
          meetingId: 'm-gaps',
          gaps: [
            { startMs: 1000, endMs: 2000, reason: 'unreadable_audio' },
            { startMs: 11_000, endMs: 15_000, reason: 'spool_full' },
            { startMs: 20_000, endMs: 21_000, reason: 'no_capture' },
          ],
        });
        expect(again!.gaps).to.deep.equal([
          { startMs: 1000, endMs: 2000, reason: 'unreadable_audio' },
          { startMs: 9000, endMs: 15_000, reason: 'spool_full' },
          { startMs: 20_000, endMs: 21_000, reason: 'no_capture' },
        ]);
        expect(again!.status).to.equal('incomplete');
        expect(await library.get('m-gaps')).to.deep.equal(again);

        // A file saved whole, then told of a gap (a second finish that knows more): incomplete.
        await record('m-later', 2);
        expect((await library.finish({ meetingId: 'm-later' }))!.status).to.equal('saved');
        const later = await library.finish({
          meetingId: 'm-later',
          gaps: [{ startMs: 0, endMs: 500, reason: 'no_capture' }],
        });
        expect(later).to.deep.include({
          status: 'incomplete',
          gaps: [{ startMs: 0, endMs: 500, reason: 'no_capture' }],
        });
      });

      it('is failed when nothing was ever stored, and null for a meeting never recorded', async () => {
        // The first batch the store ever saw starts past byte 0 (the headers were lost): refused, nothing stored.
        const refused = await rejection(
          library.append(appendRequest('m-failed', { sequence: 3, offset: 4096, length: 100 })),
        );
        expect(refused.code).to.equal('recording_gap');
        expect(await library.get('m-failed')).to.include({ status: 'recording', bytes: 0 });
        const failed = await library.finish({
          meetingId: 'm-failed',
          gaps: [{ startMs: 0, endMs: 4000, reason: 'spool_full' }],
        });
        expect(failed).to.deep.include({ status: 'failed', bytes: 0 });
        expect(failed!.gaps).to.have.length(1);
        // Nothing more can be stored in it.
        const late = await rejection(
          library.append(appendRequest('m-failed', { sequence: 0, offset: 0, length: 100 })),
        );
        expect(late.code).to.equal('recording_complete');
        expect(await storage.stat('m-failed.ogg')).to.equal(null);
        expect(await library.finish({ meetingId: 'never-recorded' })).to.equal(null);
      });

      it('acknowledges retries of stored batches however late, before and after the finish, and refuses new bytes after it', async () => {
        const all = batches(5, [4 * KiB, 6 * KiB]);
        for (const batch of all.slice(0, 3)) await library.append(appendRequest('m-late', batch));
        // A retry of batch 1 whose first attempt was stored: acknowledged with what is stored, not written again.
        expect(await library.append(appendRequest('m-late', all[1]))).to.deep.equal({ bytes: 14 * KiB });
        for (const batch of all.slice(3)) await library.append(appendRequest('m-late', batch));
        const total = 24 * KiB;
        await library.finish({ meetingId: 'm-late' });
        for (const batch of all) {
          expect(await library.append(appendRequest('m-late', batch))).to.deep.equal({ bytes: total });
        }
        const fresh = await rejection(
          library.append(appendRequest('m-late', { sequence: 5, offset: total, length: 10 })),
        );
        expect(fresh.code).to.equal('recording_complete');
        expect(fresh.status).to.equal(409);
        expect((await fileOf(storage, 'm-late')).equals(recordingBytes(0, total)), 'each batch once').to.equal(true);
        expect(await library.get('m-late')).to.include({ status: 'saved', bytes: total });
        const doc = await store.collection<RecordingDoc>('recordings').findOne({ _id: 'm-late' });
        expect(doc?.lastSequence).to.equal(4);
      });

      it("adds a lost worker's gap from the stored end when the sweep finishes it more than a second later, and only then", async () => {
        await record('m-lost', 5); // timeline stored to 5 s
        const lost = await library.finish({ meetingId: 'm-lost', lostAtMs: 9000 });
        expect(lost).to.deep.include({
          status: 'incomplete',
          gaps: [{ startMs: 5000, endMs: 9000, reason: 'worker_lost' }],
        });
        // The worker had sent nearly all (a batch in flight): nothing worth a gap.
        await record('m-nearly', 5);
        expect(await library.finish({ meetingId: 'm-nearly', lostAtMs: 5800 })).to.deep.include({
          status: 'saved',
          gaps: [],
        });
        // The worker finished first: the lease sweep's late finish adds nothing.
        await record('m-finished', 2);
        await library.finish({ meetingId: 'm-finished' });
        expect(await library.finish({ meetingId: 'm-finished', lostAtMs: 60_000 })).to.deep.include({
          status: 'saved',
          gaps: [],
        });
      });

      it("reads an older version's unavailable record as incomplete, and the sweep completes its file", async () => {
        const docs = store.collection<RecordingDoc>('recordings');
        await record('m-old', 2);
        await docs.updateOne(
          { _id: 'm-old' },
          { $set: { status: 'unavailable' }, $unset: { gaps: '', writer: '', writerUntil: '' } },
        );
        expect(await library.get('m-old')).to.deep.include({ status: 'incomplete', gaps: [] });
        expect((await storage.stat('m-old.ogg'))!.complete).to.equal(false);

        const result = await new RecordingSweep(library, silentLogger()).sweep();
        expect(result.completed.legacy).to.equal(1);
        expect((await docs.findOne({ _id: 'm-old' }))!.status).to.equal('incomplete');
        expect(await storage.stat('m-old.ogg')).to.deep.equal({ size: 8 * KiB, complete: true });
      });

      it('sweeps a recording no append reached for a while: completed with a worker_lost gap, the others left alone', async () => {
        await record('m-abandoned', 3);
        await sleep(400);
        await record('m-live', 1);
        await record('m-done', 1);
        await library.finish({ meetingId: 'm-done' });
        const sweep = new RecordingSweep(library, silentLogger(), { abandonedAfterMs: 300 });
        const result = await sweep.sweep();
        expect(result.completed).to.deep.include({ abandoned: 1, finish_retried: 0 });
        const abandoned = (await library.get('m-abandoned'))!;
        expect(abandoned.status).to.equal('incomplete');
        expect(abandoned.bytes).to.equal(11 * KiB);
        expect(abandoned.gaps).to.have.length(1);
        expect(abandoned.gaps[0]).to.include({ startMs: 3000, reason: 'worker_lost' });
        expect(await storage.stat('m-abandoned.ogg')).to.deep.equal({ size: 11 * KiB, complete: true });
        expect((await library.get('m-live'))!.status).to.equal('recording');
        expect((await library.get('m-done'))!.status).to.equal('saved');
      });
    });
  }

  describe('on S3 behind the fault proxy', () => {
    let proxy: FaultProxy;
    let store: Store;
    beforeEach(async () => {
      proxy = await startFaultProxy({ port: Number(new URL(endpoint.connection.endpoint).port) });
      toClose.push(() => proxy.close());
      store = await sharedStore();
    });
    /** An adapter that goes through the proxy and tries each request once (the fault shows at once). */
    const proxied = (overrides = {}) => s3Place(endpoint).open({ endpoint: proxy.url, maxAttempts: 1, ...overrides });

    it('leaves a finish storage refuses recording (retryable), and the sweep completes it as that finish asked', async () => {
      const storage = proxied();
      const library = await libraryOn(store, storage);
      for (const batch of batches(3, [4 * KiB])) await library.append(appendRequest('m', batch));

      await proxy.setMode({ kind: 'unavailable' });
      const gaps = [{ startMs: 1000, endMs: 1500, reason: 'unreadable_audio' as const }];
      const refused = await rejection(library.finish({ meetingId: 'm', gaps }));
      expect(refused.code).to.equal('recording_storage_unavailable');
      expect(refused.retryable).to.equal(true);
      expect(await library.get('m')).to.deep.include({ status: 'recording', gaps });
      // The finish came: a batch with new bytes is refused, a retry of a stored one still acknowledged.
      await proxy.setMode({ kind: 'pass' });
      expect(
        (await rejection(library.append(appendRequest('m', { sequence: 3, offset: 12 * KiB, length: 10 })))).code,
      ).to.equal('recording_complete');
      expect(await library.append(appendRequest('m', { sequence: 2, offset: 8 * KiB, length: 4 * KiB }))).to.deep.equal(
        {
          bytes: 12 * KiB,
        },
      );

      // The worker gave up; the sweep completes it once storage answers, with that finish's gaps, not a lost worker's.
      const sweep = new RecordingSweep(library, silentLogger(), { abandonedAfterMs: 0 });
      await proxy.setMode({ kind: 'unavailable' });
      expect((await sweep.sweep()).left).to.equal(1);
      expect((await library.get('m'))!.status).to.equal('recording');
      await proxy.setMode({ kind: 'pass' });
      expect((await sweep.sweep()).completed.finish_retried).to.equal(1);
      expect(await library.get('m')).to.deep.include({ status: 'incomplete', bytes: 12 * KiB, gaps });
      expect(await storage.stat('m.ogg')).to.deep.equal({ size: 12 * KiB, complete: true });
    });

    it('bounds what waits behind a hung store: per meeting by count and bytes, and in all; refused at once, retryable', async () => {
      const refusals: BusyReason[] = [];
      const storage = proxied({ idleTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
      const library = await libraryOn(store, storage, {
        chains: { perMeetingRequests: 3, perMeetingBytes: 64 * KiB, totalBytes: 96 * KiB },
        onBusy: (reason) => refusals.push(reason),
      });
      await proxy.setMode({ kind: 'hang' });
      // m1: the batch, then two retries of it, all waiting for the hung store.
      const first = { sequence: 0, offset: 0, length: 16 * KiB };
      const m1 = [0, 1, 2].map(() => library.append(appendRequest('m1', first)));
      const m2 = library.append(appendRequest('m2', { sequence: 0, offset: 0, length: 40 * KiB }));
      await sleep(200);
      expect(library.chains.load()).to.deep.equal({ meetings: 2, requests: 4, bytes: 88 * KiB });

      const started = Date.now();
      const busy = await Promise.all([
        rejection(library.append(appendRequest('m1', first))), // a fourth request of m1
        rejection(library.append(appendRequest('m2', { sequence: 1, offset: 40 * KiB, length: 30 * KiB }))), // m2 past 64 KiB
        rejection(library.append(appendRequest('m3', { sequence: 0, offset: 0, length: 10 * KiB }))), // all past 96 KiB
      ]);
      expect(Date.now() - started).to.be.below(1000);
      for (const err of busy) {
        expect(err.code).to.equal('recording_busy');
        expect(err.status).to.equal(503);
        expect(err.retryable).to.equal(true);
      }
      expect(refusals).to.deep.equal(['meeting_requests', 'meeting_bytes', 'total_bytes']);

      // The store answers again: the hung requests fail (the connections drop), the retries behind them store the batch once.
      await proxy.setMode({ kind: 'pass' });
      const settled = await Promise.allSettled([...m1, m2]);
      const stored = settled.filter((s) => s.status === 'fulfilled');
      expect(stored.length).to.be.at.least(2);
      expect(library.chains.load()).to.deep.equal({ meetings: 0, requests: 0, bytes: 0 });
      expect(await library.append(appendRequest('m1', first))).to.deep.equal({ bytes: 16 * KiB });
      expect((await fileOf(storage, 'm1')).equals(recordingBytes(0, 16 * KiB))).to.equal(true);
    });
  });

  describe('writer leases', () => {
    let docs: Collection<RecordingDoc>;
    const writers = (id: string, ttlMs: number) => {
      const w = new RecordingWriters(docs, id, silentLogger(), { ttlMs });
      toClose.push(() => w.close());
      return w;
    };
    const record = (id: string): RecordingDoc => ({
      _id: id,
      startedAt: new Date().toISOString(),
      status: 'recording',
      bytes: 0,
      durationMs: 0,
      updatedAt: new Date().toISOString(),
    });
    beforeEach(async () => {
      docs = (await sharedStore()).collection<RecordingDoc>('recordings');
    });

    it('gives a recording one writer: the first to claim it, until it lets go', async () => {
      const a = writers('a', 10_000);
      const b = writers('b', 10_000);
      expect(await b.claim('m')).to.deep.equal({ kind: 'none' }); // no record, none to make
      expect(await a.claim('m', () => record('m'))).to.deep.equal({ kind: 'mine', acquired: true });
      const theirs = await b.claim('m', () => record('m'));
      expect(theirs).to.include({ kind: 'theirs', holder: 'a' });
      expect(await a.claim('m')).to.deep.equal({ kind: 'mine', acquired: false });
      expect((await rejection(b.hold('m'))).code).to.equal('recording_busy');
      await a.release('m');
      expect(await b.claim('m')).to.deep.equal({ kind: 'mine', acquired: true });
      expect(await a.claim('m')).to.include({ kind: 'theirs', holder: 'b' });
      // A finished recording is only read: nobody writes it.
      await docs.updateOne({ _id: 'm' }, { $set: { status: 'saved' } });
      await b.release('m');
      expect(await a.claim('m')).to.deep.equal({ kind: 'none' });
    });

    it('lets another replica take over once a lease is not renewed, never while it is', async () => {
      const ttlMs = 600;
      const a = writers('a', ttlMs);
      a.start();
      const b = writers('b', ttlMs);
      expect((await a.claim('renewed', () => record('renewed'))).kind).to.equal('mine');
      const stale = writers('stale', ttlMs); // never started: it claims once and never renews (a dead replica)
      expect((await stale.claim('lost', () => record('lost'))).kind).to.equal('mine');
      await sleep(3 * ttlMs);
      expect(await b.claim('renewed')).to.include({ kind: 'theirs', holder: 'a' });
      expect(await b.claim('lost')).to.deep.equal({ kind: 'mine', acquired: true });
      // The dead replica, back: it no longer counts the lease as its own, and sees who writes it now.
      expect(await stale.claim('lost')).to.include({ kind: 'theirs', holder: 'b' });
      expect(a.count()).to.equal(1);
      // Closing lets go at once.
      await a.close();
      expect(await b.claim('renewed')).to.deep.equal({ kind: 'mine', acquired: true });
    });

    it("refuses (retryable) a library's write of a recording another replica writes", async () => {
      const store = await sharedStore();
      const place = filesPlace();
      toClose.push(() => place.dispose());
      const a = await libraryOn(store, place.open(), { replicaId: 'a' });
      const b = await libraryOn(store, place.open(), { replicaId: 'b' });
      await a.append(appendRequest('m', { sequence: 0, offset: 0, length: 100 }));
      const refused = await rejection(b.append(appendRequest('m', { sequence: 1, offset: 100, length: 100 })));
      expect(refused.code).to.equal('recording_busy');
      expect(refused.retryable).to.equal(true);
      expect((await rejection(b.finish({ meetingId: 'm' }))).code).to.equal('recording_busy');
      expect(await a.get('m')).to.include({ bytes: 100, status: 'recording' });
    });
  });
});
