/**
 * A store that answers every request 7 s late (a local S3 server behind the fault proxy): the
 * worker's bus call gives up first and sends the batch again at the same offset, more than once,
 * while the first attempt's write is still on its way. The service (its bus, store and S3 adapter
 * as it runs) stores each batch once: every retry is answered from what the first attempt stored,
 * none writes the bytes again, and the file is byte-exact.
 */
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes, ServiceError } from '@notetaker/contracts';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.js';
import { sleep } from '../../../test/support/wait.js';
import { embeddedStore, startHarness, type Harness } from './support/harness.js';
import { recordingBytes } from './support/recording-bytes.js';
import { appendRequest, batches, s3Place } from './support/recordings.js';
import { startS3Endpoint, type S3Endpoint } from './support/s3-server.js';

const KiB = 1024;
const STORE_LATE_MS = 7000;
/** The worker's patience with one append: shorter than the store's lateness. */
const WORKER_TIMEOUT_MS = 4000;

describe('recordings on a store that answers every request 7 s late', function () {
  this.timeout(240_000);
  let endpoint: S3Endpoint;
  let proxy: FaultProxy;
  let h: Harness;

  before(async () => {
    endpoint = await startS3Endpoint();
    proxy = await startFaultProxy({ port: Number(new URL(endpoint.connection.endpoint).port) });
    const place = s3Place(endpoint);
    h = await startHarness(embeddedStore, undefined, { env: { ...place.env, RECORDINGS_S3_URL: proxy.url } });
  });
  after(async () => {
    await h?.dispose();
    await proxy?.close();
    await endpoint?.stop();
  });

  it('stores each batch once although every first attempt times out and is retried at the same offset', async () => {
    const puts = endpoint.countPuts();
    await proxy.setMode({ kind: 'delay', delayMs: STORE_LATE_MS });
    const plan = batches(3, [6 * KiB, 9 * KiB]);
    const attempts: number[] = [];
    for (const batch of plan) {
      for (let attempt = 1; ; attempt++) {
        try {
          const { bytes } = await call(h.bus, routes.recordings.append, appendRequest('m-late', batch), {
            timeoutMs: WORKER_TIMEOUT_MS,
          });
          expect(bytes).to.equal(batch.offset + batch.length);
          attempts.push(attempt);
          break;
        } catch (err) {
          // What the worker retries: the bus gave up (the store is late), or its requests wait already.
          if (!(err instanceof ServiceError) || !['bus_timeout', 'recording_busy'].includes(err.code)) throw err;
          if (attempt > 30) throw err;
          if (err.code === 'recording_busy') await sleep(1000 * (err.retryAfterS ?? 1));
        }
      }
    }
    // The first attempt of every batch came too late for the worker: the retries were needed.
    expect(
      attempts.every((n) => n >= 2),
      `attempts per batch: ${attempts.join(', ')}`,
    ).to.equal(true);

    await proxy.setMode({ kind: 'pass' });
    const total = plan.at(-1)!.offset + plan.at(-1)!.length;
    const saved = await call(h.bus, routes.recordings.finish, { meetingId: 'm-late' });
    expect(saved).to.deep.include({ status: 'saved', bytes: total, gaps: [] });
    const { data } = await call(h.bus, routes.recordings.read, { meetingId: 'm-late', start: 0, end: total - 1 });
    expect(Buffer.from(data, 'base64').equals(recordingBytes(0, total)), 'each batch once, in order').to.equal(true);
    if (puts) {
      // And in the bucket: each batch's chunk was written once, whatever the retries.
      const chunks = [...puts].filter(([name]) => /\/m-late\.ogg\/c\d{15}$/.test(name));
      expect(chunks.map(([, count]) => count)).to.deep.equal([1, 1, 1]);
    }
  });
});
