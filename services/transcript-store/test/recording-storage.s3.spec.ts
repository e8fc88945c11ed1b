/**
 * The recording storage contract on an S3 bucket: a fake S3 server started here, or the endpoint
 * RECORDINGS_S3_URL names (support/s3-server.ts). Each test works under its own prefix. Plus what
 * only S3 has: a bucket that refuses or cannot be reached, segments, an interrupted complete,
 * pre-signed URLs.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { S3RecordingStorage, PART_SIZE } from '../src/recordings/s3.js';
import { createS3Client } from '../src/recordings/s3-client.js';
import { S3Layout } from '../src/recordings/s3-layout.js';
import {
  recordingStorageContract,
  type RecordingPlace,
  type RecordingStorageFactory,
} from './recording-storage.contract.js';
import { startS3Endpoint, type S3Endpoint } from './support/s3-server.js';
import { readAll, recordingBytes } from './support/recording-bytes.js';
import { rejection } from '../../../test/support/rejection.js';

const KiB = 1024;

describe('recording storage (S3)', function () {
  let endpoint: S3Endpoint;
  let client: S3Client;
  const run = `recording-storage-test-${process.pid}-${Date.now()}`;
  let places = 0;

  before(async () => {
    endpoint = await startS3Endpoint();
    client = createS3Client(endpoint.connection);
  });
  after(async () => {
    client?.destroy();
    await endpoint?.stop();
  });

  /** Object names under `prefix`, and unfinished uploads there where the store can list them. */
  async function traces(prefix: string): Promise<string[]> {
    const { bucket } = endpoint.connection;
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) names.push(object.Key!);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    for (const upload of await uploads(prefix)) names.push(`upload ${upload.key}`);
    return names;
  }

  async function uploads(prefix: string): Promise<Array<{ key: string; id: string }>> {
    try {
      const page = await client.send(
        new ListMultipartUploadsCommand({ Bucket: endpoint.connection.bucket, Prefix: prefix }),
      );
      return (page.Uploads ?? []).map((u) => ({ key: u.Key!, id: u.UploadId! }));
    } catch (err) {
      if (endpoint.local) return []; // s3rver cannot list uploads (see support/s3-server.ts)
      throw err;
    }
  }

  function place(): RecordingPlace & { prefix: string } {
    const prefix = `${run}-${++places}/`;
    const { connection } = endpoint;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recording-storage-s3-'));
    return {
      prefix,
      open: () => new S3RecordingStorage({ ...connection, prefix }),
      env: () => ({
        env: {
          RECORDINGS_S3_URL: connection.endpoint,
          RECORDINGS_S3_BUCKET: connection.bucket,
          RECORDINGS_S3_REGION: connection.region,
          RECORDINGS_S3_ACCESS_KEY_ID: connection.accessKeyId ?? '',
          RECORDINGS_S3_SECRET_ACCESS_KEY: connection.secretAccessKey ?? '',
          RECORDINGS_S3_FORCE_PATH_STYLE: String(connection.forcePathStyle),
          RECORDINGS_S3_PREFIX: prefix,
        },
        dataDir,
      }),
      traces: () => traces(prefix),
      async dispose() {
        const { bucket } = connection;
        for (const upload of await uploads(prefix)) {
          await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.key, UploadId: upload.id }));
        }
        for (const name of await traces(prefix))
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: name }));
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }

  const s3: RecordingStorageFactory = { label: 'S3', place: async () => place() };

  recordingStorageContract(s3);

  describe('on S3 only', () => {
    let here: ReturnType<typeof place>;
    let opened: S3RecordingStorage[];
    const open = (options: Partial<ConstructorParameters<typeof S3RecordingStorage>[0]> = {}) => {
      const storage = new S3RecordingStorage({ ...endpoint.connection, prefix: here.prefix, ...options });
      opened.push(storage);
      return storage;
    };
    beforeEach(() => {
      here = place();
      opened = [];
    });
    afterEach(async () => {
      await Promise.all(opened.map((s) => s.close()));
      await here.dispose();
    });

    /** `total` bytes of m.ogg appended in steps of 256 KiB by a storage then closed, not completed. */
    async function appendThenClose(total: number): Promise<void> {
      const storage = open();
      for (let at = 0; at < total; at += 256 * KiB) {
        await storage.append('m.ogg', at, recordingBytes(at, Math.min(256 * KiB, total - at)));
      }
      await storage.close();
    }

    /** The note a complete() keeps of the multipart upload it started for m.ogg, for a later complete(). */
    async function noteUpload(layout: S3Layout, uploadId: string): Promise<void> {
      const { bucket } = endpoint.connection;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: layout.uploadName('m.ogg'), Body: uploadId }));
    }

    it('fails fast with a clear error when the endpoint cannot be reached, naming no secret', async () => {
      const port = await closedPort();
      const storage = open({ endpoint: `http://127.0.0.1:${port}`, secretAccessKey: 'not-to-be-shown' });
      const started = Date.now();
      const err = await rejection(storage.append('m.ogg', 0, recordingBytes(0, 10)));
      expect(Date.now() - started).to.be.below(5000);
      expect(err.code).to.equal('recording_storage_unavailable');
      expect(err.status).to.equal(503);
      expect(err.retryable).to.equal(true);
      expect(err.message).to.include(`127.0.0.1:${port}`).and.include('cannot be reached');
      expect(err.message).not.to.include('not-to-be-shown');
      expect((await rejection(storage.stat('m.ogg'))).code).to.equal('recording_storage_unavailable');
    });

    it('fails within its timeouts when the endpoint takes connections and never answers', async () => {
      const silent = net.createServer(() => {}); // accepts, reads nothing, answers nothing
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = silent.address() as net.AddressInfo;
        const storage = open({ endpoint: `http://127.0.0.1:${port}`, idleTimeoutMs: 300, maxAttempts: 2 });
        const started = Date.now();
        const err = await rejection(storage.append('m.ogg', 0, recordingBytes(0, 10)));
        expect(Date.now() - started).to.be.below(5000);
        expect(err.code).to.equal('recording_storage_unavailable');
        expect(err.message).to.include('did not answer in time');
      } finally {
        silent.close();
      }
    });

    it('fails with a clear error when the bucket refuses the credentials', async () => {
      const storage = open({ accessKeyId: 'NOT-A-KEY', secretAccessKey: 'not-to-be-shown' });
      const err = await rejection(storage.append('m.ogg', 0, recordingBytes(0, 10)));
      expect(err.code).to.equal('recording_storage_unavailable');
      expect(err.message).to.include('credentials were refused');
      expect(err.message).not.to.include('not-to-be-shown');
    });

    it('fails with a clear error when the bucket does not exist', async () => {
      const storage = open({ bucket: `no-such-bucket-${process.pid}-${Date.now()}` });
      const err = await rejection(storage.append('m.ogg', 0, recordingBytes(0, 10)));
      expect(err.code).to.equal('recording_storage_unavailable');
      if (endpoint.local) expect(err.message).to.include('the bucket does not exist');
    });

    it('gathers the chunks into one segment object once 5 MiB have arrived', async () => {
      const storage = open();
      const layout = new S3Layout(here.prefix);
      const end = 52 * 100 * KiB; // just past PART_SIZE
      for (let at = 0; at < end; at += 100 * KiB) await storage.append('m.ogg', at, recordingBytes(at, 100 * KiB));
      // The segment is written behind the append that filled it, before the next one.
      await storage.append('m.ogg', end, recordingBytes(end, 10));
      const names = await traces(here.prefix);
      expect(names).to.include(layout.segmentName('m.ogg', 0));
      expect(names.filter((n) => n.startsWith(layout.chunkName('m.ogg', 0).slice(0, -15)))).to.deep.equal([
        layout.chunkName('m.ogg', end),
      ]);
    });

    it('completes with the upload an interrupted complete() had started', async () => {
      const layout = new S3Layout(here.prefix);
      const total = PART_SIZE + 300 * KiB;
      await appendThenClose(total);
      // What a complete() killed after starting its upload leaves: the upload and the note of it.
      const started = await client.send(
        new CreateMultipartUploadCommand({ Bucket: endpoint.connection.bucket, Key: layout.finalName('m.ogg') }),
      );
      await noteUpload(layout, started.UploadId!);

      const again = open();
      expect(await again.complete('m.ogg')).to.deep.equal({ size: total });
      expect((await readAll(await again.read('m.ogg', 0, total - 1))).equals(recordingBytes(0, total))).to.equal(true);
      expect(await traces(here.prefix)).to.deep.equal([layout.finalName('m.ogg')]);
    });

    it('starts a new upload when the one an interrupted complete() noted is gone', async function () {
      // s3rver accepts parts for an upload it never started; S3 and its kin answer NoSuchUpload.
      if (endpoint.local) this.skip();
      const layout = new S3Layout(here.prefix);
      const total = PART_SIZE + 10 * KiB;
      await appendThenClose(total);
      await noteUpload(layout, 'no-such-upload');
      expect(await open().complete('m.ogg')).to.deep.equal({ size: total });
      expect(await traces(here.prefix)).to.deep.equal([layout.finalName('m.ogg')]);
    });

    it('signs a download URL for a complete recording, for 15 minutes at most', async () => {
      const storage = open();
      await storage.append('m.ogg', 0, recordingBytes(0, 1000));
      await storage.complete('m.ogg');
      const url = await storage.presign('m.ogg', 60);
      const response = await fetch(url);
      expect(response.status).to.equal(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(recordingBytes(0, 1000))).to.equal(true);
      expect((await rejection(storage.presign('m.ogg', 901))).code).to.equal('bad_request');
      expect((await rejection(storage.presign('../m.ogg', 60))).code).to.equal('bad_request');
    });
  });
});

/** A port on this machine that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
