/**
 * The recording storage the configuration asks for: files under DATA_DIR/recordings unless
 * RECORDINGS_S3_URL names an S3-compatible endpoint, then a bucket there.
 */
import path from 'node:path';
import { envBool, envString, parseEnv } from '@notetaker/config';
import type { Logger } from '@notetaker/observability';
import { z } from 'zod';
import { FilesystemRecordingStorage } from './filesystem.js';
import type { RecordingStorage } from './port.js';
import { S3RecordingStorage } from './s3.js';

export type { RecordingStat, RecordingStorage } from './port.js';
export { FilesystemRecordingStorage } from './filesystem.js';
export { S3RecordingStorage, PART_SIZE, MAX_PRESIGN_SECONDS } from './s3.js';
export { assertRecordingKey } from './key.js';

export const recordingsEnv = z
  .object({
    /** e.g. http://127.0.0.1:9000 (MinIO), https://s3.eu-west-1.amazonaws.com, https://<account>.r2.cloudflarestorage.com. */
    RECORDINGS_S3_URL: envString.pipe(
      z
        .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
        .refine((url) => !new URL(url).username && !new URL(url).password, {
          error: 'must not hold credentials: use RECORDINGS_S3_ACCESS_KEY_ID and RECORDINGS_S3_SECRET_ACCESS_KEY',
        })
        .optional(),
    ),
    RECORDINGS_S3_BUCKET: envString,
    RECORDINGS_S3_REGION: envString.transform((v) => v ?? 'us-east-1'),
    RECORDINGS_S3_ACCESS_KEY_ID: envString,
    RECORDINGS_S3_SECRET_ACCESS_KEY: envString,
    RECORDINGS_S3_FORCE_PATH_STYLE: envBool(true),
    /** Object names start with this, for a bucket shared with other data (`recordings/`). */
    RECORDINGS_S3_PREFIX: envString,
  })
  .superRefine((env, ctx) => {
    if (!env.RECORDINGS_S3_URL) return;
    if (!env.RECORDINGS_S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['RECORDINGS_S3_BUCKET'], message: 'is required with RECORDINGS_S3_URL' });
    }
    // One without the other is a typo, not a wish for the SDK's own credential chain.
    if (!env.RECORDINGS_S3_ACCESS_KEY_ID !== !env.RECORDINGS_S3_SECRET_ACCESS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: [env.RECORDINGS_S3_ACCESS_KEY_ID ? 'RECORDINGS_S3_SECRET_ACCESS_KEY' : 'RECORDINGS_S3_ACCESS_KEY_ID'],
        message: 'RECORDINGS_S3_ACCESS_KEY_ID and RECORDINGS_S3_SECRET_ACCESS_KEY go together',
      });
    }
  });

export interface RecordingStorageConfig {
  /** The service's environment (the RECORDINGS_S3_* variables). */
  env: NodeJS.ProcessEnv;
  /** The service's DATA_DIR: files go to `<dataDir>/recordings`. */
  dataDir: string;
  /** TRANSCRIPT_FSYNC: fdatasync every append to a file (default true). */
  fsync?: boolean;
  logger?: Pick<Logger, 'warn'>;
}

export function recordingStorageFromEnv(config: RecordingStorageConfig): RecordingStorage {
  const env = parseEnv(recordingsEnv, config.env);
  if (!env.RECORDINGS_S3_URL) {
    return new FilesystemRecordingStorage({ root: path.join(config.dataDir, 'recordings'), fsync: config.fsync });
  }
  return new S3RecordingStorage({
    endpoint: env.RECORDINGS_S3_URL,
    bucket: env.RECORDINGS_S3_BUCKET!,
    region: env.RECORDINGS_S3_REGION,
    accessKeyId: env.RECORDINGS_S3_ACCESS_KEY_ID,
    secretAccessKey: env.RECORDINGS_S3_SECRET_ACCESS_KEY,
    forcePathStyle: env.RECORDINGS_S3_FORCE_PATH_STYLE,
    prefix: env.RECORDINGS_S3_PREFIX,
    logger: config.logger,
  });
}
