/**
 * The few S3 calls the adapter makes, each answering plainly (null for a missing object) and
 * failing with one `recording_storage_unavailable` error that says what went wrong: the bucket
 * does not exist, the credentials were refused, the endpoint cannot be reached. The message
 * names the endpoint's origin and the bucket, never a key, a secret or a signed URL, and the
 * SDK's own error (which may hold request details) is not passed on.
 */
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
  UploadPartCopyCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { mapLimit } from './concurrency.js';
import { recordingErrors, translatingErrors } from './errors.js';
import { causeOf, isMissing, isNoSuchUpload, isUnsupported, originOf, type SdkError } from './s3-errors.js';

/** Objects per DeleteObjects request (S3's limit). */
const BATCH = 1000;
/** Requests at once when objects are deleted one by one. */
const PARALLEL = 16;

/** The upload named does not exist (any more): completed, aborted or expired by a lifecycle rule. */
export class NoSuchUpload extends Error {}

export class Bucket {
  /** `S3 bucket "<name>" at <origin>`, for messages and log lines. */
  readonly where: string;
  /** DeleteObjects failed once here: removeAll deletes one object per request. */
  private singleDeletes = false;
  /** UploadPartCopy was refused as unsupported once here: copyPart uploads the bytes. */
  private noPartCopy = false;

  constructor(
    readonly client: S3Client,
    readonly name: string,
    endpoint: string,
  ) {
    this.where = `S3 bucket "${name}" at ${originOf(endpoint)}`;
  }

  /** The object's size, or null when there is none. */
  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.name, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err)) return null;
      throw this.failure(err);
    }
  }

  /** Bytes [start, endInclusive] of an object, or null when it is gone. */
  async stream(key: string, start: number, endInclusive: number): Promise<Readable | null> {
    try {
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.name, Key: key, Range: `bytes=${start}-${endInclusive}` }),
      );
      const body = got.Body as Readable;
      const wanted = endInclusive - start + 1;
      if (got.ContentLength === wanted) return body;
      return Readable.from(clip(body, skipped(start, got.ContentRange), wanted), { objectMode: false });
    } catch (err) {
      if (isMissing(err)) return null;
      throw this.failure(err);
    }
  }

  async bytes(key: string, start?: number, endInclusive?: number): Promise<Buffer | null> {
    try {
      const range = start === undefined ? undefined : `bytes=${start}-${endInclusive}`;
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.name, Key: key, Range: range }));
      const array = await got.Body!.transformToByteArray();
      const body = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
      if (start === undefined) return body;
      const from = skipped(start, got.ContentRange);
      return body.subarray(from, from + endInclusive! - start + 1);
    } catch (err) {
      if (isMissing(err)) return null;
      throw this.failure(err);
    }
  }

  async put(key: string, body: Buffer, contentType = 'application/octet-stream'): Promise<void> {
    await this.call(() =>
      this.client.send(new PutObjectCommand({ Bucket: this.name, Key: key, Body: body, ContentType: contentType })),
    );
  }

  /** No error when there is no such object (S3 answers the same). */
  async remove(key: string): Promise<void> {
    await this.call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.name, Key: key })));
  }

  /**
   * Removes many objects: a thousand per DeleteObjects request (a segment replaces about a
   * thousand chunks), or one request each on a store without it (GCS) or that fails it for a
   * reason that is not the store's being unreachable or refusing us: the first such failure
   * switches this client to single deletes.
   */
  async removeAll(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length && !this.singleDeletes; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      try {
        const answer = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.name,
            Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true },
          }),
        );
        const failed = (answer.Errors ?? []).map((e) => e.Key!).filter(Boolean);
        await mapLimit(failed, PARALLEL, (key) => this.remove(key));
      } catch (err) {
        if (causeOf(err).kind === 'store') throw this.failure(err);
        this.singleDeletes = true;
        keys = keys.slice(i);
      }
    }
    if (this.singleDeletes) await mapLimit(keys, PARALLEL, (key) => this.remove(key));
  }

  /** Objects under `prefix`, all pages; with `delimiter`, the folders one level down come as `folders`. */
  async *list(prefix: string, delimiter?: string): AsyncIterable<{ name: string; size: number } | { folder: string }> {
    let token: string | undefined;
    do {
      const page = await this.call(() =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.name,
            Prefix: prefix,
            Delimiter: delimiter,
            ContinuationToken: token,
          }),
        ),
      );
      for (const object of page.Contents ?? []) yield { name: object.Key!, size: object.Size ?? 0 };
      for (const folder of page.CommonPrefixes ?? []) yield { folder: folder.Prefix! };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async objects(prefix: string): Promise<Array<{ name: string; size: number }>> {
    const out: Array<{ name: string; size: number }> = [];
    for await (const entry of this.list(prefix)) if ('name' in entry) out.push(entry);
    return out;
  }

  async createUpload(key: string, contentType: string): Promise<string> {
    const created = await this.call(() =>
      this.client.send(new CreateMultipartUploadCommand({ Bucket: this.name, Key: key, ContentType: contentType })),
    );
    return created.UploadId!;
  }

  /**
   * Part `partNumber` of the upload is the whole of object `source`: copied inside the store
   * (UploadPartCopy, nothing downloaded), or read and uploaded again on a store that answers
   * that it cannot copy parts.
   */
  async copyPart(key: string, uploadId: string, partNumber: number, source: string): Promise<CompletedPart> {
    if (!this.noPartCopy) {
      try {
        const copied = await this.client.send(
          new UploadPartCopyCommand({
            Bucket: this.name,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            CopySource: `${this.name}/${source.split('/').map(encodeURIComponent).join('/')}`,
          }),
        );
        return { PartNumber: partNumber, ETag: copied.CopyPartResult?.ETag };
      } catch (err) {
        if (isNoSuchUpload(err)) throw new NoSuchUpload();
        if (!isUnsupported(err)) throw this.failure(err);
        this.noPartCopy = true;
      }
    }
    const bytes = await this.bytes(source);
    if (!bytes) throw recordingErrors.unavailable(this.where, 'a staged piece of the recording vanished');
    return this.uploadPart(key, uploadId, partNumber, bytes);
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer): Promise<CompletedPart> {
    const uploaded = await this.upload(() =>
      this.client.send(
        new UploadPartCommand({ Bucket: this.name, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body }),
      ),
    );
    return { PartNumber: partNumber, ETag: uploaded.ETag };
  }

  async completeUpload(key: string, uploadId: string, parts: CompletedPart[]): Promise<void> {
    await this.upload(() =>
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.name,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
  }

  /**
   * Ends an upload and frees its parts. An upload already gone is fine, and so is a store that
   * cannot abort (s3rver): its parts then stay until the bucket's AbortIncompleteMultipartUpload
   * lifecycle rule removes them.
   */
  async abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.name, Key: key, UploadId: uploadId }));
    } catch (err) {
      if (isNoSuchUpload(err) || isUnsupported(err)) return;
      throw this.failure(err);
    }
  }

  /**
   * The unfinished multipart uploads of exactly `key`; none on a store that cannot list them, or
   * where the credentials may not (s3:ListBucketMultipartUploads is often left out of a policy):
   * this is a sweep for what a crash left unnoted, not something a delete depends on.
   */
  async uploadsOf(key: string): Promise<string[]> {
    const ids: string[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    try {
      for (;;) {
        const page = await this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.name,
            Prefix: key,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
        for (const upload of page.Uploads ?? []) if (upload.Key === key && upload.UploadId) ids.push(upload.UploadId);
        if (!page.IsTruncated) return ids;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
      }
    } catch (err) {
      if (isUnsupported(err) || (err as SdkError).$metadata?.httpStatusCode === 403) return ids;
      throw this.failure(err);
    }
  }

  private call<T>(send: () => Promise<T>): Promise<T> {
    return translatingErrors(send, (err) => this.failure(err));
  }

  /** A multipart call: a vanished upload is NoSuchUpload, for complete() to start a new one. */
  private upload<T>(send: () => Promise<T>): Promise<T> {
    return translatingErrors(send, (err) => (isNoSuchUpload(err) ? new NoSuchUpload() : this.failure(err)));
  }

  private failure(err: unknown) {
    return recordingErrors.unavailable(this.where, causeOf(err).text);
  }
}

/**
 * Where the bytes asked for start in a ranged answer's body. A server may send more than the
 * range: s3rver answers `bytes=0-0` with the whole object, and one that ignores ranges sends it
 * all from byte 0 (no Content-Range). Trimming costs nothing when the answer is exact.
 */
function skipped(start: number, contentRange: string | undefined): number {
  const first = contentRange ? /^bytes (\d+)-/.exec(contentRange)?.[1] : undefined;
  return first === undefined ? (contentRange ? 0 : start) : start - Number(first);
}

/** `length` bytes of `source` after the first `skip`. */
async function* clip(source: AsyncIterable<Buffer>, skip: number, length: number): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    let part = chunk;
    if (skip > 0) {
      const dropped = Math.min(skip, part.length);
      part = part.subarray(dropped);
      skip -= dropped;
    }
    if (part.length === 0) continue;
    if (part.length >= length) {
      yield part.subarray(0, length);
      return; // leaving the loop destroys the source: the rest is not read
    }
    length -= part.length;
    yield part;
  }
}
