/**
 * The recording storage contract (src/recordings/port.ts), one suite run against each adapter:
 * recording-storage.fs.spec.ts always, recording-storage.s3.spec.ts against a fake S3 server it
 * starts (or the endpoint in RECORDINGS_S3_URL).
 */
import { expect } from 'chai';
import { ServiceError } from '@notetaker/contracts';
import { PART_SIZE } from '../src/recordings/s3.js';
import type { RecordingStorage } from '../src/recordings/port.js';
import { rejection } from '../../../test/support/rejection.js';
import { fileURLToPath } from 'node:url';
import { startChild } from '@notetaker/store/test-support';
import { chunkSizes, readAll, recordingBytes } from './support/recording-bytes.js';

/** One empty storage for one test. */
export interface RecordingPlace {
  /** A new adapter instance on this storage: a restarted process, no memory shared with earlier ones. */
  open(): RecordingStorage;
  /** The environment and DATA_DIR with which recordingStorageFromEnv opens this storage in another process. */
  env(): { env: Record<string, string>; dataDir: string };
  /** Every name the storage holds for this place (files; objects and unfinished multipart uploads). */
  traces(): Promise<string[]>;
  dispose(): Promise<void>;
}

export interface RecordingStorageFactory {
  label: string;
  place(): Promise<RecordingPlace>;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export function recordingStorageContract(factory: RecordingStorageFactory): void {
  let place: RecordingPlace;
  let opened: RecordingStorage[];
  /** An adapter on this test's storage; closed after the test. */
  const open = () => {
    const storage = place.open();
    opened.push(storage);
    return storage;
  };

  beforeEach(async () => {
    place = await factory.place();
    opened = [];
  });
  afterEach(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await place.dispose();
  });

  /** Appends bytes [from, to) of the test recording in chunks of the sizes given (cycled). */
  async function appendRange(storage: RecordingStorage, key: string, from: number, to: number, sizes: number[]) {
    let at = from;
    for (let i = 0; at < to; i++) {
      const length = Math.min(sizes[i % sizes.length], to - at);
      const { size } = await storage.append(key, at, recordingBytes(at, length));
      at += length;
      expect(size).to.equal(at);
    }
  }

  async function expectRange(storage: RecordingStorage, key: string, start: number, end: number) {
    const bytes = await readAll(await storage.read(key, start, end));
    expect(bytes.length, `bytes ${start}-${end}`).to.equal(end - start + 1);
    expect(bytes.equals(recordingBytes(start, end - start + 1)), `bytes ${start}-${end} as appended`).to.equal(true);
  }

  it('keeps every byte of many small appends across the 5 MiB part size, readable while appending and once complete', async function () {
    this.timeout(120_000); // a fake S3 server on a busy machine takes its time
    const storage = open();
    const key = 'meeting-1.ogg';
    // 6 MiB: the first 4.75 MiB in large chunks, then 1.25 MiB across the part size in chunks of
    // 4 to 8 KiB (two seconds of Opus each), some 200 of them: each append is a request to a
    // bucket, and a fake S3 server takes milliseconds for one.
    const total = 6 * MiB;
    const small = 4.75 * MiB;
    const sizes = [...chunkSizes(small, 96 * KiB, 160 * KiB), ...chunkSizes(total - small, 4 * KiB, 8 * KiB)];
    let at = 0;
    let checkedEarly = false;
    for (const length of sizes) {
      const { size } = await storage.append(key, at, recordingBytes(at, length));
      at += length;
      expect(size).to.equal(at);
      if (!checkedEarly && at >= small + 100 * KiB) {
        checkedEarly = true;
        await expectRange(storage, key, 0, 99);
        await expectRange(storage, key, MiB, 2 * MiB);
        await expectRange(storage, key, at - 30 * KiB, at - 1);
      }
    }
    // Past the part size, still appending: both sides of the 5 MiB mark and the last byte.
    expect(await storage.stat(key)).to.deep.equal({ size: total, complete: false });
    await expectRange(storage, key, 0, 99);
    await expectRange(storage, key, PART_SIZE - 20 * KiB, PART_SIZE + 20 * KiB);
    await expectRange(storage, key, total - 1, total - 1);

    expect(await storage.complete(key)).to.deep.equal({ size: total });
    expect(await storage.stat(key)).to.deep.equal({ size: total, complete: true });
    expect(await storage.size(key)).to.equal(total);
    await expectRange(storage, key, 0, 0);
    await expectRange(storage, key, PART_SIZE - 1, PART_SIZE);
    await expectRange(storage, key, total - 1, total - 1);
    const whole = await readAll(await storage.read(key, 0, total - 1));
    expect(whole.equals(recordingBytes(0, total)), 'the whole recording as appended').to.equal(true);
  });

  it('answers a retried append with the size, and stores a chunk that overlaps the end once', async () => {
    const storage = open();
    const key = 'retried.ogg';
    await storage.append(key, 0, recordingBytes(0, 5000));
    await storage.append(key, 5000, recordingBytes(5000, 3000));
    // The first chunk again (a bus request retried after its answer was lost): nothing changes.
    expect(await storage.append(key, 0, recordingBytes(0, 5000))).to.deep.equal({ size: 8000 });
    expect(await storage.append(key, 5000, recordingBytes(5000, 3000))).to.deep.equal({ size: 8000 });
    // Bytes 6000-8999: 2000 already there, 1000 new.
    expect(await storage.append(key, 6000, recordingBytes(6000, 3000))).to.deep.equal({ size: 9000 });
    expect(await storage.append(key, 9000, Buffer.alloc(0))).to.deep.equal({ size: 9000 });
    await expectRange(storage, key, 0, 8999);
  });

  it('refuses a chunk that would leave a gap, on a new recording and after stored bytes', async () => {
    const storage = open();
    const first = await rejection(storage.append('gap.ogg', 10, recordingBytes(10, 10)));
    expect(first.code).to.equal('recording_gap');
    expect(first.status).to.equal(409);
    expect(await storage.stat('gap.ogg')).to.equal(null);

    await storage.append('gap.ogg', 0, recordingBytes(0, 100));
    const later = await rejection(storage.append('gap.ogg', 101, recordingBytes(101, 10)));
    expect(later.code).to.equal('recording_gap');
    expect(later.message).to.include('101').and.include('100 bytes');
    expect(await storage.size('gap.ogg')).to.equal(100);
  });

  it('reads a range while appending and once complete, cutting an end past what is stored', async () => {
    const storage = open();
    const key = 'ranges.ogg';
    await appendRange(storage, key, 0, 40 * KiB, [4 * KiB, 5 * KiB, 7 * KiB]);
    await expectRange(storage, key, 0, 9);
    await expectRange(storage, key, 4 * KiB - 3, 9 * KiB + 3); // across chunks
    const cut = await readAll(await storage.read(key, 40 * KiB - 10, 10 * MiB));
    expect(cut.equals(recordingBytes(40 * KiB - 10, 10))).to.equal(true);

    const past = await rejection(storage.read(key, 40 * KiB, 40 * KiB + 5));
    expect(past.code).to.equal('range_not_satisfiable');
    expect((await rejection(storage.read(key, 10, 9))).code).to.equal('bad_request');
    expect((await rejection(storage.read('nothing.ogg', 0, 9))).code).to.equal('not_found');

    await storage.complete(key);
    await expectRange(storage, key, 0, 9);
    await expectRange(storage, key, 20 * KiB, 30 * KiB);
    await expectRange(storage, key, 40 * KiB - 1, 40 * KiB - 1);
    expect((await rejection(storage.read(key, 40 * KiB, 40 * KiB))).code).to.equal('range_not_satisfiable');
  });

  it('gives a read the bytes stored when it was asked, while appends and a segment go on', async () => {
    const storage = open();
    const key = 'moving.ogg';
    const before = PART_SIZE - 100 * KiB;
    await appendRange(storage, key, 0, before, [256 * KiB]);
    const stream = await storage.read(key, 0, before - 1);
    // Past the part size and on: the chunks the read was planned on may be gathered meanwhile.
    await appendRange(storage, key, before, PART_SIZE + 300 * KiB, [64 * KiB]);
    const bytes = await readAll(stream);
    expect(bytes.equals(recordingBytes(0, before)), 'what was stored when the read was asked').to.equal(true);
  });

  it('completes twice with the same answer, and then takes no more bytes', async () => {
    const storage = open();
    const key = 'twice.ogg';
    await appendRange(storage, key, 0, 30 * KiB, [8 * KiB]);
    expect(await storage.complete(key)).to.deep.equal({ size: 30 * KiB });
    expect(await storage.complete(key)).to.deep.equal({ size: 30 * KiB });
    // A chunk retried after the recording was completed changes nothing...
    expect(await storage.append(key, 8 * KiB, recordingBytes(8 * KiB, 8 * KiB))).to.deep.equal({ size: 30 * KiB });
    // ...and new bytes are refused.
    const late = await rejection(storage.append(key, 30 * KiB, recordingBytes(30 * KiB, 10)));
    expect(late.code).to.equal('recording_complete');
    expect(await storage.stat(key)).to.deep.equal({ size: 30 * KiB, complete: true });
    await expectRange(storage, key, 0, 30 * KiB - 1);
    // Another instance agrees, from storage alone.
    expect(await open().complete(key)).to.deep.equal({ size: 30 * KiB });
    expect((await rejection(storage.complete('never-appended.ogg'))).code).to.equal('not_found');
  });

  it('lets a new instance, sharing no memory, go on with and complete what a crashed one appended', async function () {
    this.timeout(60_000);
    const key = 'crashed.ogg';
    const first = open();
    const crashedAt = PART_SIZE + 700 * KiB + 123;
    await appendRange(first, key, 0, crashedAt, [256 * KiB, 192 * KiB]);
    // Every append was answered, so everything is stored. What the instance may still have under
    // way is tidying (a segment being gathered); waiting for it keeps the two instances from
    // working on one recording at once, which a killed process could not do either.
    await first.close();

    const second = open();
    expect(await second.stat(key)).to.deep.equal({ size: crashedAt, complete: false });
    await expectRange(second, key, crashedAt - 10, crashedAt - 1);
    // The bot resends the chunk it had no answer for, then goes on.
    expect(await second.append(key, crashedAt - 100, recordingBytes(crashedAt - 100, 100))).to.deep.equal({
      size: crashedAt,
    });
    const total = crashedAt + 200 * KiB;
    await appendRange(second, key, crashedAt, total, [8 * KiB]);
    await second.close();

    // A third instance only completes (the finish request went to another process).
    const third = open();
    expect(await third.complete(key)).to.deep.equal({ size: total });
    const whole = await readAll(await third.read(key, 0, total - 1));
    expect(whole.equals(recordingBytes(0, total)), 'the whole recording as appended').to.equal(true);
  });

  it('lets two instances take turns on one recording (its writer lease moving), storing every byte once', async () => {
    const a = open();
    const b = open();
    const key = 'turns.ogg';
    await appendRange(a, key, 0, 20 * KiB, [4 * KiB]);
    // The lease moves to b (another replica), which is told to read the recording afresh...
    b.forget?.(key);
    await appendRange(b, key, 20 * KiB, 40 * KiB, [4 * KiB]);
    // ...and back to a, which last saw 20 KiB: a retry of a batch b stored is acknowledged, not stored again.
    a.forget?.(key);
    expect(await a.append(key, 20 * KiB, recordingBytes(20 * KiB, 4 * KiB))).to.deep.equal({ size: 40 * KiB });
    await appendRange(a, key, 40 * KiB, 60 * KiB, [4 * KiB]);
    expect(await b.stat(key)).to.deep.equal({ size: 60 * KiB, complete: false });
    expect(await a.complete(key)).to.deep.equal({ size: 60 * KiB });
    await expectRange(b, key, 0, 60 * KiB - 1);
    expect(await place.traces()).to.have.length(1);
  });

  it('acknowledges a late retry of any batch of a complete recording, and refuses one that brings new bytes', async () => {
    const storage = open();
    const key = 'late.ogg';
    await appendRange(storage, key, 0, 12 * KiB, [3 * KiB]);
    await storage.complete(key);
    // Every batch again, however late: each is acknowledged with the complete size.
    for (let at = 0; at < 12 * KiB; at += 3 * KiB) {
      expect(await open().append(key, at, recordingBytes(at, 3 * KiB))).to.deep.equal({ size: 12 * KiB });
    }
    // The last one with one byte more is new: refused, and the file is as it was.
    expect((await rejection(storage.append(key, 9 * KiB, recordingBytes(9 * KiB, 3 * KiB + 1)))).code).to.equal(
      'recording_complete',
    );
    await expectRange(storage, key, 0, 12 * KiB - 1);
    expect(await storage.stat(key)).to.deep.equal({ size: 12 * KiB, complete: true });
  });

  it('keeps every acknowledged byte when the appending process is killed (SIGKILL)', async function () {
    this.timeout(60_000);
    const key = 'killed.ogg';
    const { env, dataDir } = place.env();
    const child = startChild(
      [key, dataDir],
      fileURLToPath(new URL('./support/recording-append-child.ts', import.meta.url)),
      env,
    );
    try {
      await child.waitFor((line) => Number(line.split(' ')[1]) >= 150 * KiB);
    } finally {
      child.process.kill('SIGKILL');
    }
    await child.exited;
    const acked = Math.max(...child.lines.map((line) => Number(line.split(' ')[1])));

    const storage = open();
    const size = (await storage.size(key))!;
    // The append under way when the process died may be stored or not, but never in part.
    expect(size).to.be.at.least(acked);
    await expectRange(storage, key, 0, size - 1);
    expect(await storage.complete(key)).to.deep.equal({ size });
  });

  it('deletes every trace of a recording, complete or not', async function () {
    this.timeout(30_000);
    const storage = open();
    await appendRange(storage, 'done.ogg', 0, PART_SIZE + 50 * KiB, [512 * KiB]);
    await storage.complete('done.ogg');
    // A complete recording is one name: nothing of its staging is left.
    const afterComplete = await place.traces();
    expect(afterComplete, afterComplete.join(', ')).to.have.length(1);
    await appendRange(storage, 'going.ogg', 0, PART_SIZE + 50 * KiB, [512 * KiB]);
    await appendRange(storage, 'going.ogg', PART_SIZE + 50 * KiB, PART_SIZE + 90 * KiB, [8 * KiB]);
    await appendRange(storage, 'kept.ogg', 0, 10 * KiB, [5 * KiB]);

    expect(await storage.delete('done.ogg')).to.equal(true);
    expect(await storage.delete('going.ogg')).to.equal(true);
    expect(await storage.stat('done.ogg')).to.equal(null);
    expect(await storage.stat('going.ogg')).to.equal(null);
    expect((await rejection(storage.read('going.ogg', 0, 0))).code).to.equal('not_found');
    expect(await storage.delete('done.ogg')).to.equal(false);
    expect(await storage.delete('never.ogg')).to.equal(false);
    // Only the other recording is left.
    const left = await place.traces();
    expect(
      left.filter((name) => !name.includes('kept.ogg')),
      left.join(', '),
    ).to.deep.equal([]);
    await expectRange(storage, 'kept.ogg', 0, 10 * KiB - 1);
    expect(await storage.delete('kept.ogg')).to.equal(true);
    expect(await place.traces()).to.deep.equal([]);

    // A deleted key starts again from nothing.
    await storage.append('done.ogg', 0, recordingBytes(0, 10));
    expect(await storage.stat('done.ogg')).to.deep.equal({ size: 10, complete: false });
  });

  it('lists the keys that have something stored, complete or not, once each', async () => {
    const storage = open();
    await storage.append('a.ogg', 0, recordingBytes(0, 10));
    await storage.append('b.ogg', 0, recordingBytes(0, 10));
    await storage.complete('b.ogg');
    const keys: string[] = [];
    for await (const key of storage.keys()) keys.push(key);
    expect(keys.sort()).to.deep.equal(['a.ogg', 'b.ogg']);
  });

  it('refuses keys that could reach outside the storage or its own names, before anything else', async () => {
    const storage = open();
    const bad = [
      '../x',
      'a/b',
      '..',
      '.',
      '.staging',
      '.incomplete',
      'a\\b',
      'a\0b',
      '',
      'a..b',
      'x'.repeat(201),
      'é.ogg',
    ];
    for (const key of bad) {
      const attempts: Array<Promise<unknown>> = [
        storage.append(key, 0, Buffer.from('x')),
        storage.complete(key),
        storage.stat(key),
        storage.read(key, 0, 0),
        storage.delete(key),
      ];
      for (const attempt of attempts) {
        const err = await rejection(attempt);
        expect(err, JSON.stringify(key)).to.be.instanceOf(ServiceError);
        expect(err.code, JSON.stringify(key)).to.equal('bad_request');
      }
    }
    expect((await rejection(storage.append('ok.ogg', -1, Buffer.from('x')))).code).to.equal('bad_request');
    expect((await rejection(storage.append('ok.ogg', 0.5, Buffer.from('x')))).code).to.equal('bad_request');
    expect(await place.traces()).to.deep.equal([]);
  });
}
