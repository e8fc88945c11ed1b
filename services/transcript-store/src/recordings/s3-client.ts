/**
 * The S3 client the adapter uses, with limits that make a store that is down or hangs fail an
 * append in seconds instead of holding it.
 */
import { S3Client } from '@aws-sdk/client-s3';

export interface S3ConnectionOptions {
  /** The S3 endpoint, e.g. http://127.0.0.1:9000 (MinIO) or https://<account>.r2.cloudflarestorage.com. */
  endpoint: string;
  bucket: string;
  /** Default us-east-1 (what MinIO and most S3-compatible stores expect when they have no regions). */
  region?: string;
  /** Both or neither; neither: the SDK's own chain (AWS_* variables, an instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key` (default true: MinIO and most self-hosted stores). */
  forcePathStyle?: boolean;
  /** A connection not made by then fails (default 3 s). */
  connectTimeoutMs?: number;
  /** A request during which nothing moves for this long fails (default 10 s): a store that hangs. */
  idleTimeoutMs?: number;
  /** A request not finished by then fails however it moves (default 60 s: 5 MiB on a slow link). */
  requestTimeoutMs?: number;
  /** Tries per request, the first one included (default 3); a refusal (403, 404) is not tried again. */
  maxAttempts?: number;
}

export function createS3Client(options: S3ConnectionOptions): S3Client {
  return new S3Client({
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? true,
    ...(options.accessKeyId && options.secretAccessKey
      ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
      : {}),
    maxAttempts: options.maxAttempts ?? 3,
    // Each limit fails the request (the SDK then tries again, up to maxAttempts): a store that
    // stops answering costs an append seconds, not a hang.
    requestHandler: {
      connectionTimeout: options.connectTimeoutMs ?? 3000,
      socketTimeout: options.idleTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 60_000,
      // Without it the SDK only logs that requestTimeout passed, and goes on waiting.
      throwOnRequestTimeout: true,
    },
    // The SDK's default checksums on every upload (since early 2025) are refused or mishandled by
    // several S3-compatible stores; S3 itself needs them only where an operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
