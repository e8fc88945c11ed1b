/**
 * One writer per recording with two transcript-store replicas, as the Kubernetes base runs them:
 * on a real nats-server in one queue group, each on its own connection, one shared store, and the
 * recordings on one S3 bucket (a local S3 server; each replica its own adapter) or in one shared
 * folder. A worker's batches and their retries reach either replica, the same batch at both at
 * once: the file holds every byte once, in order, and no append is refused for a gap. A replica
 * that stops hands its recordings over at once; one that dies, once its lease runs out.
 */
import { expect } from 'chai';
import { call, connectNatsBus, type Bus } from '@notetaker/bus';
import { routes, ServiceError } from '@notetaker/contracts';
import type { Store } from '@notetaker/store';
import { findNatsServerBinary, startNatsServer, type NatsServerHandle } from '@notetaker/bus/test-support';
import type { RecordingDoc } from '../src/recordings/record.js';
import { readAll, recordingBytes } from './support/recording-bytes.js';
import { appendRequest, batches, filesPlace, s3Place, tempStore, type StoragePlace } from './support/recordings.js';
import { startReplica, type Replica } from './support/replicas.js';
import { startS3Endpoint, type S3Endpoint } from './support/s3-server.js';
import { sleep } from '../../../test/support/wait.js';

const KiB = 1024;
const LEASE_MS = 3000;
/** The worker's patience with one append (the bus's default). */
const WORKER_TIMEOUT_MS = 5000;

describe('recordings with two transcript-store replicas on NATS', function () {
  this.timeout(180_000);
  let nats: NatsServerHandle;
  let endpoint: S3Endpoint;
  let worker: Bus;

  before(async () => {
    const binary = findNatsServerBinary();
    if (!binary) throw new Error('these tests need nats-server on PATH (or NATS_SERVER_BIN)');
    nats = await startNatsServer(binary);
    endpoint = await startS3Endpoint();
    worker = await connectNatsBus({ servers: nats.url, name: 'meeting-worker' });
  });
  after(async () => {
    await worker?.close();
    await endpoint?.stop();
    await nats?.stop();
  });

  let place: StoragePlace;
  let shared: { store: Store; dispose(): Promise<void> };
  let replicas: Replica[];
  afterEach(async () => {
    for (const replica of replicas) await replica.stop();
    await shared.dispose();
    place.dispose();
  });

  async function start(make: () => StoragePlace): Promise<void> {
    place = make();
    shared = await tempStore();
    replicas = [];
    for (let i = 0; i < 2; i++) {
      replicas.push(
        await startReplica(nats.url, shared.store, place, { recordings: { writerLease: { ttlMs: LEASE_MS } } }),
      );
    }
  }

  /** What the worker's retries meet: every answer, failures by code. */
  interface Seen {
    errors: Record<string, number>;
  }

  /** Sends the batch until it is stored, as the worker does: again at the same offset after a retryable failure. */
  async function sendUntilStored(
    meetingId: string,
    batch: ReturnType<typeof batches>[number],
    seen: Seen,
  ): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (
          await call(worker, routes.recordings.append, appendRequest(meetingId, batch), {
            timeoutMs: WORKER_TIMEOUT_MS,
          })
        ).bytes;
      } catch (err) {
        const code = err instanceof ServiceError ? err.code : String(err);
        seen.errors[code] = (seen.errors[code] ?? 0) + 1;
        if (!(err instanceof ServiceError) || !err.retryable || attempt > 100) throw err;
        await sleep(100);
      }
    }
  }

  async function stored(meetingId: string): Promise<Buffer> {
    const storage = place.open();
    try {
      const size = (await storage.size(`${meetingId}.ogg`)) ?? 0;
      return await readAll(await storage.read(`${meetingId}.ogg`, 0, size - 1));
    } finally {
      await storage.close();
    }
  }

  const writerOf = async (meetingId: string) =>
    (await shared.store.collection<RecordingDoc>('recordings').findOne({ _id: meetingId }))?.writer;

  const adapters: Array<{ label: string; make: () => StoragePlace }> = [
    { label: 'one S3 bucket', make: () => s3Place(endpoint) },
    { label: 'one shared folder', make: filesPlace },
  ];

  for (const { label, make } of adapters) {
    describe(`recordings on ${label}`, () => {
      beforeEach(() => start(make));

      it('stores each batch once when the batches and their retries reach both replicas at once', async () => {
        // Past the 5 MiB at which the S3 adapter gathers its chunks into a segment: two writers
        // would each write it from what they know, the shorter last, and cut the recording there.
        const meetings = ['m-one', 'm-two'];
        const plan = batches(40, [160 * KiB, 224 * KiB, 96 * KiB]);
        const total = plan.at(-1)!.offset + plan.at(-1)!.length;
        const seen: Seen = { errors: {} };
        const puts = label.includes('S3') ? endpoint.countPuts() : null;
        await Promise.all(
          meetings.map(async (meetingId) => {
            for (const batch of plan) {
              // The batch and two retries of it at once (a bus timeout, the answer lost): the queue group
              // spreads them over both replicas.
              const answers = await Promise.all([0, 1, 2].map(() => sendUntilStored(meetingId, batch, seen)));
              expect(answers).to.deep.equal(Array(3).fill(batch.offset + batch.length));
            }
          }),
        );
        if (puts) {
          // Each batch's bytes went to the bucket once (chunk objects are named by their offset): one writer.
          const prefix = `${place.env.RECORDINGS_S3_PREFIX}.staging/`;
          const chunks = [...puts].filter(([name]) => name.startsWith(prefix) && /\/c\d{15}$/.test(name));
          expect(chunks).to.have.length(meetings.length * plan.length);
          expect(
            chunks.filter(([, count]) => count > 1),
            'chunks written twice',
          ).to.deep.equal([]);
        }
        expect(seen.errors).not.to.have.property('recording_gap');
        expect(seen.errors).not.to.have.property('recording_complete');
        for (const meetingId of meetings) {
          const info = await call(worker, routes.recordings.finish, { meetingId });
          expect(info).to.deep.include({ status: 'saved', bytes: total, gaps: [] });
          expect((await stored(meetingId)).equals(recordingBytes(0, total)), `${meetingId}: every byte once`).to.equal(
            true,
          );
        }
        // The replica that did not write a recording handed its requests to the one that did.
        let forwarded = 0;
        for (const replica of replicas) {
          forwarded += await replica.counted('transcript_store_recording_forwarded_total', { outcome: 'answered' });
        }
        expect(forwarded).to.be.greaterThan(0);
      });

      it('hands a recording over at once when its writer stops, and after its lease when it dies', async () => {
        const plan = batches(12, [4 * KiB, 6 * KiB]);
        const seen: Seen = { errors: {} };
        for (const batch of plan.slice(0, 4)) await sendUntilStored('m-handover', batch, seen);
        const first = await writerOf('m-handover');
        const holder = replicas.find((r) => r.running.replicaId === first)!;
        const other = replicas.find((r) => r !== holder)!;

        // A graceful stop lets go of the lease: the other replica writes from the next batch on, refusing none.
        await holder.stop();
        for (const batch of plan.slice(4, 6)) await sendUntilStored('m-handover', batch, seen);
        expect(await writerOf('m-handover')).to.equal(other.running.replicaId);
        expect(seen.errors).to.deep.equal({});

        // A third replica joins, the writer dies (its lease stays until it runs out): the batches are refused,
        // retryable, until the lease ran out; then the survivor takes over.
        const third = await startReplica(nats.url, shared.store, place, {
          recordings: { writerLease: { ttlMs: LEASE_MS } },
        });
        replicas.push(third);
        await other.crash();
        const crashedAt = Date.now();
        // The server notices the dead connection in a moment; a request routed to it before times out.
        await sleep(300);
        for (const batch of plan.slice(6)) await sendUntilStored('m-handover', batch, seen);
        const tookOver = Date.now() - crashedAt;
        expect(await writerOf('m-handover')).to.equal(third.running.replicaId);
        // Refused while the dead writer's lease lasts; a request the server still routed to the dead
        // connection times out (both retryable, the worker sends the batch again).
        expect(seen.errors).to.have.property('recording_busy');
        expect(Object.keys(seen.errors)).to.satisfy((codes: string[]) =>
          codes.every((code) => code === 'recording_busy' || code === 'bus_timeout'),
        );
        expect(tookOver).to.be.within(LEASE_MS / 2, 4 * LEASE_MS + WORKER_TIMEOUT_MS);

        const total = plan.at(-1)!.offset + plan.at(-1)!.length;
        expect(await call(worker, routes.recordings.finish, { meetingId: 'm-handover' })).to.deep.include({
          status: 'saved',
          bytes: total,
        });
        expect((await stored('m-handover')).equals(recordingBytes(0, total)), 'every byte once').to.equal(true);
      });
    });
  }
});
