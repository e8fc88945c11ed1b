/**
 * What the recording tests above the storage share: a real store in a temp folder, the storages
 * a test can put a library on (files, or a prefix of an S3 endpoint), and the worker's requests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '@notetaker/store';
import { FilesystemRecordingStorage } from '../../src/recordings/filesystem.js';
import type { RecordingStorage } from '../../src/recordings/port.js';
import { S3RecordingStorage, type S3RecordingOptions } from '../../src/recordings/s3.js';
import { recordingBytes } from './recording-bytes.js';
import type { S3Endpoint } from './s3-server.js';

export const STARTED_AT = '2026-12-02T10:00:00.000Z';

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The embedded store in a folder of its own: one object standing for a MongoDB every replica shares. */
export async function tempStore(): Promise<{ store: Store; dispose(): Promise<void> }> {
  const dir = tempDir('recordings-store-');
  const store = await openStore({ service: 'transcript-store', dataDir: dir });
  return {
    store,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A place recordings can be kept for one test; `open()` is another replica's adapter on it. */
export interface StoragePlace {
  label: string;
  open(overrides?: Partial<S3RecordingOptions>): RecordingStorage;
  /** RECORDINGS_* variables and DATA_DIR with which the service opens this place. */
  env: Record<string, string>;
  dataDir: string;
  dispose(): void;
}

export function filesPlace(): StoragePlace {
  const dataDir = tempDir('recordings-files-');
  return {
    label: 'files',
    open: () => new FilesystemRecordingStorage({ root: path.join(dataDir, 'recordings'), fsync: false }),
    env: { RECORDINGS_S3_URL: '' },
    dataDir,
    dispose: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

let prefixes = 0;

/** A prefix of its own on `endpoint`'s bucket (what it leaves there is the endpoint's to remove). */
export function s3Place(endpoint: S3Endpoint): StoragePlace {
  const prefix = `recordings-test-${process.pid}-${Date.now()}-${++prefixes}/`;
  const { connection } = endpoint;
  const dataDir = tempDir('recordings-s3-');
  return {
    label: 'S3',
    open: (overrides = {}) => new S3RecordingStorage({ ...connection, prefix, ...overrides }),
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
    dispose: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** The worker's append of batch `sequence`: bytes [offset, offset + length) of the test recording. */
export function appendRequest(
  meetingId: string,
  batch: { sequence: number; offset: number; length: number; durationMs?: number },
) {
  return {
    meetingId,
    startedAt: STARTED_AT,
    sequence: batch.sequence,
    offset: batch.offset,
    data: recordingBytes(batch.offset, batch.length).toString('base64'),
    durationMs: batch.durationMs ?? (batch.sequence + 1) * 1000,
  };
}

/** A recording cut into batches of these sizes (cycled), `count` of them, with their offsets. */
export function batches(count: number, sizes: number[]): Array<{ sequence: number; offset: number; length: number }> {
  const out: Array<{ sequence: number; offset: number; length: number }> = [];
  let offset = 0;
  for (let sequence = 0; sequence < count; sequence++) {
    const length = sizes[sequence % sizes.length];
    out.push({ sequence, offset, length });
    offset += length;
  }
  return out;
}
