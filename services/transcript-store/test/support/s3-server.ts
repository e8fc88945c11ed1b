/**
 * An S3 endpoint for the recording storage tests: the one RECORDINGS_S3_URL names (with
 * RECORDINGS_S3_BUCKET and the RECORDINGS_S3_* credentials; the bucket must exist), or else a
 * fake S3 server started here, in this process: @20minutes/s3rver (the maintained fork of s3rver
 * that runs on Node 20), keeping its objects as files in a temp folder.
 *
 * s3rver knows multipart uploads and UploadPartCopy but cannot list or abort uploads; the tests
 * that look for unfinished uploads see none there, and check them for real against an endpoint.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';
import type { S3ConnectionOptions } from '../../src/recordings/s3-client.js';

export interface S3Endpoint {
  connection: Required<Pick<S3ConnectionOptions, 'endpoint' | 'bucket' | 'region' | 'forcePathStyle'>> &
    Pick<S3ConnectionOptions, 'accessKeyId' | 'secretAccessKey'>;
  /** True for the fake server. */
  local: boolean;
  /**
   * How many times each object was written by a PutObject (names as in the bucket), from now on;
   * null on an endpoint that is not the fake server (it does not tell).
   */
  countPuts(): Map<string, number> | null;
  stop(): Promise<void>;
}

/** s3rver's built-in account. */
const LOCAL_KEY = 'S3RVER';

export async function startS3Endpoint(): Promise<S3Endpoint> {
  const url = process.env.RECORDINGS_S3_URL;
  if (url) {
    const env = process.env;
    if (!env.RECORDINGS_S3_BUCKET) throw new Error('RECORDINGS_S3_URL is set: set RECORDINGS_S3_BUCKET too');
    return {
      connection: {
        endpoint: url,
        bucket: env.RECORDINGS_S3_BUCKET,
        region: env.RECORDINGS_S3_REGION || 'us-east-1',
        forcePathStyle: env.RECORDINGS_S3_FORCE_PATH_STYLE !== 'false',
        accessKeyId: env.RECORDINGS_S3_ACCESS_KEY_ID,
        secretAccessKey: env.RECORDINGS_S3_SECRET_ACCESS_KEY,
      },
      local: false,
      countPuts: () => null,
      stop: async () => {},
    };
  }
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const bucket = 'recordings';
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    // s3rver signs a bucket-level request (`/recordings/?list-type=2`) without the trailing
    // slash the SDK signs, and refuses every listing; the access key is still checked.
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    connection: {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      region: 'us-east-1',
      forcePathStyle: true,
      accessKeyId: LOCAL_KEY,
      secretAccessKey: LOCAL_KEY,
    },
    local: true,
    countPuts() {
      const counts = new Map<string, number>();
      server.on('event', ({ Records }) => {
        for (const record of Records) {
          if (record.eventName !== 'ObjectCreated:Put') continue;
          const key = decodeURIComponent(record.s3.object.key);
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      });
      return counts;
    },
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The RECORDINGS_S3_* settings that point a stack at `connection`, reached at `url` (a fault proxy in front, say). */
export function recordingsS3Env(
  connection: S3Endpoint['connection'],
  url = connection.endpoint,
): Record<string, string> {
  return {
    RECORDINGS_S3_URL: url,
    RECORDINGS_S3_BUCKET: connection.bucket,
    RECORDINGS_S3_REGION: connection.region,
    RECORDINGS_S3_ACCESS_KEY_ID: connection.accessKeyId ?? '',
    RECORDINGS_S3_SECRET_ACCESS_KEY: connection.secretAccessKey ?? '',
  };
}
