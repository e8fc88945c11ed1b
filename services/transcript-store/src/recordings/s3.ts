/**
 * Recordings in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, ...), laid out as
 * s3-layout.ts says.
 *
 * Durable per append: each append is one PutObject of just its new bytes (a chunk object of a
 * few KB), answered once the store has it. Nothing is rewritten per append: a single "tail"
 * object overwritten on each append would upload on average 2.5 MB every 2 s per meeting to
 * stay under the 5 MiB part minimum.
 *
 * Segments: once 5 MiB of chunks have gathered (about every 25 minutes of Opus), they are read
 * back and written as one segment object, then deleted (DeleteObjects, a thousand at a time), in
 * the background but before the key's next append or complete (KeyedSerial). Memory holds only the list of chunks since the last segment,
 * never their bytes. A multipart part must be 5 MiB or more except the last: segments are such
 * parts, and the chunks after the last segment make the last part.
 *
 * Complete: a recording under 5 MiB is one PutObject of its chunks; a longer one is a multipart
 * upload whose parts are copied inside the store from the segments (UploadPartCopy, no download;
 * a store that cannot copy parts gets them uploaded), plus the remaining chunks uploaded as the
 * last part, and the result's size is checked. The upload's id is noted in the staging folder
 * first, so a complete() interrupted by a crash carries on with the same upload rather than
 * leaving one behind; once the object exists the staging folder is deleted. A complete() that
 * finds the object already there only tidies up.
 *
 * Reads while incomplete: S3 shows no byte of a multipart upload before it is completed, which is
 * why nothing is uploaded as a part before complete(): segments and chunks are plain objects, and
 * a read fetches the ones its range covers (a few ahead at a time). A piece deleted under it (a
 * segment was written, or the recording completed) makes it list again and go on from there.
 *
 * Recovery: everything is derived from the bucket. A new instance lists the staging folder
 * (parseStaged) on the first append, complete or read of a key; memory only caches what this
 * instance wrote, and an offset past that cached end is checked against the bucket before it is
 * refused. One writer per key at a time: two instances appending to one recording at once could
 * both write one segment, the shorter last; transcript-store's replicas never do (one holds the
 * recording's lease, recordings/writers.ts, and the others hand it their requests), and an
 * instance that gets a recording back forgets what it cached (forget()).
 *
 * Permissions the credentials need on the bucket: s3:ListBucket, s3:GetObject, s3:PutObject,
 * s3:DeleteObject, s3:AbortMultipartUpload (s3:ListBucketMultipartUploads is used when granted).
 * A lifecycle rule AbortIncompleteMultipartUpload of a day or so sweeps what a crash could leave.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { errors } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { recordingErrors } from './errors.js';
import { assertByteCount, assertRange, assertRecordingKey, isRecordingKey } from './key.js';
import type { RecordingStat, RecordingStorage } from './port.js';
import { Bucket, NoSuchUpload } from './s3-bucket.js';
import { createS3Client, type S3ConnectionOptions } from './s3-client.js';
import { S3Layout, contentTypeOf, type Piece, type Staged } from './s3-layout.js';
import { KeyedSerial, inOrder, mapLimit } from './concurrency.js';

/** S3's smallest part but the last; a segment is written once this much has gathered in chunks. */
export const PART_SIZE = 5 * 1024 * 1024;
/** Requests at once when reading chunks back (a segment is about a thousand). */
const PARALLEL = 16;
/** Pieces a read fetches ahead of the one being sent. */
const READ_AHEAD = 8;
/** Longest life of a pre-signed URL, in seconds. */
export const MAX_PRESIGN_SECONDS = 900;

export interface S3RecordingOptions extends S3ConnectionOptions {
  /** Names start with this (a shared bucket), `recordings/` say; default none. */
  prefix?: string;
  /** Where a failed background segment write is reported (it is tried again at the next append). */
  logger?: Pick<Logger, 'warn'>;
}

/** What this instance knows of a recording it is appending to. */
interface Appending {
  size: number;
  segmentsEnd: number;
  chunks: Piece[];
}

interface Found {
  complete: boolean;
  size: number;
  staged: Staged;
}

export class S3RecordingStorage implements RecordingStorage {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: Bucket;
  private readonly layout: S3Layout;
  private readonly logger?: Pick<Logger, 'warn'>;
  private readonly appending = new Map<string, Appending>();
  private readonly serial = new KeyedSerial();

  constructor(options: S3RecordingOptions) {
    this.client = createS3Client(options);
    this.bucket = new Bucket(this.client, options.bucket, options.endpoint);
    this.layout = new S3Layout(options.prefix);
    this.logger = options.logger;
    this.description = this.layout.prefix ? `${this.bucket.where}, under ${this.layout.prefix}` : this.bucket.where;
  }

  async append(key: string, offset: number, bytes: Buffer): Promise<{ size: number }> {
    assertRecordingKey(key);
    assertByteCount('offset', offset);
    return this.serial.run(key, async () => {
      const cached = this.appending.get(key);
      let state = cached ?? (await this.load(key));
      // Another instance may have stored more since this one last wrote (it took over during a
      // restart): the bucket, not this cache, decides whether an offset leaves a gap.
      if (cached && offset > cached.size) state = await this.load(key);
      if ('completeSize' in state) {
        if (offset + bytes.length <= state.completeSize) return { size: state.completeSize };
        throw recordingErrors.complete(key, state.completeSize);
      }
      if (offset > state.size) throw recordingErrors.gap(key, offset, state.size);
      if (offset + bytes.length <= state.size) return { size: state.size };
      const fresh = bytes.subarray(state.size - offset);
      const name = this.layout.chunkName(key, state.size);
      await this.bucket.put(name, fresh);
      state.chunks.push({ name, start: state.size, size: fresh.length });
      state.size += fresh.length;
      if (state.size - state.segmentsEnd >= PART_SIZE) this.writeSegmentSoon(key);
      return { size: state.size };
    });
  }

  async complete(key: string): Promise<{ size: number }> {
    assertRecordingKey(key);
    return this.serial.run(key, async () => {
      this.appending.delete(key);
      const found = await this.inspect(key);
      if (found.complete) {
        if (found.staged.names.length > 0) await this.clearStaging(key, found.staged, { abort: false });
        return { size: found.size };
      }
      const { staged } = found;
      if (staged.size === 0) throw recordingErrors.notFound(key);
      const rest = staged.chunks.length > 0 ? await this.gather(staged.chunks) : null;
      if (staged.segments.length === 0) {
        await this.bucket.put(this.layout.finalName(key), rest!, contentTypeOf(key));
      } else {
        await this.compose(key, staged, rest);
      }
      await this.clearStaging(key, staged, { abort: false });
      return { size: staged.size };
    });
  }

  forget(key: string): void {
    // Queued behind what is under way for the key: a background segment write keeps its state.
    void this.serial.run(key, async () => this.appending.delete(key));
  }

  async stat(key: string): Promise<RecordingStat | null> {
    assertRecordingKey(key);
    const found = await this.inspect(key);
    if (!found.complete && found.size === 0) return null;
    return { size: found.size, complete: found.complete };
  }

  async size(key: string): Promise<number | null> {
    return (await this.stat(key))?.size ?? null;
  }

  async read(key: string, start: number, endInclusive: number): Promise<Readable> {
    assertRecordingKey(key);
    assertRange(start, endInclusive);
    const found = await this.inspect(key);
    if (!found.complete && found.size === 0) throw recordingErrors.notFound(key);
    if (start >= found.size) throw recordingErrors.range(key, start, found.size);
    const last = Math.min(endInclusive, found.size - 1);
    if (found.complete) return this.streamComplete(key, start, last);
    return Readable.from(this.readStaged(key, found.staged, start, last), { objectMode: false });
  }

  async delete(key: string): Promise<boolean> {
    assertRecordingKey(key);
    return this.serial.run(key, async () => {
      this.appending.delete(key);
      const finalName = this.layout.finalName(key);
      const staged = this.layout.parseStaged(key, await this.bucket.objects(this.layout.stagingDir(key)));
      await this.clearStaging(key, staged, { abort: true });
      // An upload whose id was never noted (a crash right after it was started) is found by
      // listing, on the stores that can list uploads.
      for (const uploadId of await this.bucket.uploadsOf(finalName)) await this.bucket.abortUpload(finalName, uploadId);
      const existed = (await this.bucket.size(finalName)) !== null;
      if (existed) await this.bucket.remove(finalName);
      return existed || staged.names.length > 0;
    });
  }

  async *keys(): AsyncIterable<string> {
    const seen = new Set<string>();
    const { prefix, stagingRoot } = this.layout;
    for await (const entry of this.bucket.list(prefix, '/')) {
      if ('name' in entry) {
        const key = entry.name.slice(prefix.length);
        if (isRecordingKey(key) && !seen.has(key)) yield remember(seen, key);
      }
    }
    for await (const entry of this.bucket.list(stagingRoot, '/')) {
      if ('folder' in entry) {
        const key = entry.folder.slice(stagingRoot.length, -1);
        if (isRecordingKey(key) && !seen.has(key)) yield remember(seen, key);
      }
    }
  }

  /**
   * A URL that downloads the complete recording without credentials for `expiresSeconds` (at most
   * 900). Signed here, no request made: for a recording not complete yet the URL answers 404.
   * The URL is a credential while it lasts: hand it to the one client, never to a log line.
   */
  async presign(key: string, expiresSeconds = 300): Promise<string> {
    assertRecordingKey(key);
    if (!Number.isInteger(expiresSeconds) || expiresSeconds < 1 || expiresSeconds > MAX_PRESIGN_SECONDS) {
      throw errors.badRequest(
        `expiresSeconds must be a whole number from 1 to ${MAX_PRESIGN_SECONDS}`,
        'expiresSeconds',
      );
    }
    const command = new GetObjectCommand({ Bucket: this.bucket.name, Key: this.layout.finalName(key) });
    return getSignedUrl(this.client, command, { expiresIn: expiresSeconds });
  }

  async close(): Promise<void> {
    await this.serial.idle();
    this.client.destroy();
  }

  /** The staging folder and the complete object, read from the bucket (listing first, see readStaged). */
  private async inspect(key: string): Promise<Found> {
    const staged = this.layout.parseStaged(key, await this.bucket.objects(this.layout.stagingDir(key)));
    // Listed before the object is looked up: a complete() finishing between the two is then seen
    // as complete, never as no recording at all.
    const completeSize = await this.bucket.size(this.layout.finalName(key));
    if (completeSize !== null) return { complete: true, size: completeSize, staged };
    return { complete: false, size: staged.size, staged };
  }

  /** What the bucket holds of a key, cached for the appends that follow when it is not complete. */
  private async load(key: string): Promise<Appending | { completeSize: number }> {
    const found = await this.inspect(key);
    if (found.complete) {
      this.appending.delete(key);
      return { completeSize: found.size };
    }
    const { size, segmentsEnd, chunks } = found.staged;
    const state = { size, segmentsEnd, chunks: [...chunks] };
    this.appending.set(key, state);
    return state;
  }

  /** Queued behind the append that filled the segment: its caller does not wait for it. */
  private writeSegmentSoon(key: string): void {
    this.serial
      .run(key, () => this.writeSegment(key))
      .catch((err: unknown) => {
        // What this instance believed may be what failed: the next append reads the bucket again.
        this.appending.delete(key);
        this.logger?.warn(
          { key, error: err instanceof Error ? err.message : String(err) },
          'recording segment not written yet; tried again at the next append',
        );
      });
  }

  private async writeSegment(key: string): Promise<void> {
    const state = this.appending.get(key);
    if (!state || state.size - state.segmentsEnd < PART_SIZE) return; // completed or deleted meanwhile
    const chunks = state.chunks;
    const segment = await this.gather(chunks);
    await this.bucket.put(this.layout.segmentName(key, state.segmentsEnd), segment);
    state.segmentsEnd += segment.length;
    state.chunks = [];
    // Left-overs of a failure here are ignored by parseStaged and removed by complete().
    await this.bucket.removeAll(chunks.map((chunk) => chunk.name));
  }

  /** The pieces' bytes, one after the other. */
  private async gather(pieces: Piece[]): Promise<Buffer> {
    const parts = await mapLimit(pieces, PARALLEL, async (piece) => {
      const bytes = await this.bucket.bytes(piece.name);
      if (bytes?.length !== piece.size) {
        throw recordingErrors.unavailable(
          this.bucket.where,
          'a staged piece of the recording changed while being read',
        );
      }
      return bytes;
    });
    return Buffer.concat(parts);
  }

  /** The complete object from the segments (copied inside the store) and the remaining chunks. */
  private async compose(key: string, staged: Staged, rest: Buffer | null): Promise<void> {
    const finalName = this.layout.finalName(key);
    const uploadName = this.layout.uploadName(key);
    let uploadId = staged.hasUpload ? ((await this.bucket.bytes(uploadName))?.toString('utf8') ?? null) : null;
    for (let attempt = 0; ; attempt++) {
      if (!uploadId) {
        uploadId = await this.bucket.createUpload(finalName, contentTypeOf(key));
        await this.bucket.put(uploadName, Buffer.from(uploadId, 'utf8'));
      }
      const id = uploadId;
      try {
        // Part numbers are fixed by position: a retried complete() overwrites the same parts.
        const parts = await mapLimit(staged.segments, 4, (segment, i) =>
          this.bucket.copyPart(finalName, id, i + 1, segment.name),
        );
        if (rest) parts.push(await this.bucket.uploadPart(finalName, id, parts.length + 1, rest));
        await this.bucket.completeUpload(finalName, id, parts);
        // Checked once (a HEAD): a store that mishandled a part must not leave a short recording
        // passing for complete. The staging folder still holds all of it.
        const composed = await this.bucket.size(finalName);
        if (composed !== staged.size) {
          await this.bucket.remove(finalName);
          throw recordingErrors.unavailable(
            this.bucket.where,
            `the store composed ${composed} bytes instead of ${staged.size}; the recording stays incomplete`,
          );
        }
        return;
      } catch (err) {
        if (!(err instanceof NoSuchUpload)) throw err;
        // The noted upload is gone (a lifecycle rule expired it, or it was aborted): start a new one, once.
        if (attempt > 0) {
          throw recordingErrors.unavailable(this.bucket.where, 'the multipart upload vanished while completing');
        }
        uploadId = null;
      }
    }
  }

  /** Deletes the staging folder; with `abort`, first ends the upload it notes (not for a completed one). */
  private async clearStaging(key: string, staged: Staged, { abort }: { abort: boolean }): Promise<void> {
    const uploadName = this.layout.uploadName(key);
    if (abort && staged.hasUpload) {
      const uploadId = (await this.bucket.bytes(uploadName))?.toString('utf8');
      if (uploadId) await this.bucket.abortUpload(this.layout.finalName(key), uploadId);
    }
    await this.bucket.removeAll(staged.names.filter((name) => name !== uploadName));
    // Last, and whether listed or not (complete() may have written it since): while it is there,
    // an interrupted clean-up can still find the upload.
    await this.bucket.remove(uploadName);
  }

  private async streamComplete(key: string, start: number, last: number): Promise<Readable> {
    const stream = await this.bucket.stream(this.layout.finalName(key), start, last);
    if (!stream) throw recordingErrors.notFound(key);
    return stream;
  }

  /** Bytes [start, last] of a recording in progress, from the pieces that hold them. */
  private async *readStaged(key: string, staged: Staged, start: number, last: number): AsyncGenerator<Buffer> {
    let at = start;
    let pieces = [...staged.segments, ...staged.chunks];
    for (let attempt = 0; at <= last; attempt++) {
      if (attempt > 3)
        throw recordingErrors.unavailable(this.bucket.where, 'the recording kept changing while being read');
      const from = at;
      const jobs = pieces
        .filter((piece) => piece.start + piece.size > from && piece.start <= last)
        .map(
          (piece) => () =>
            this.bucket.bytes(
              piece.name,
              Math.max(from, piece.start) - piece.start,
              Math.min(last, piece.start + piece.size - 1) - piece.start,
            ),
        );
      let gone = false;
      for await (const bytes of inOrder(jobs, READ_AHEAD)) {
        if (!bytes) {
          gone = true;
          break;
        }
        yield bytes;
        at += bytes.length;
      }
      if (!gone) return;
      // A piece went into a segment, or into the complete object, since the listing: look again.
      const found = await this.inspect(key);
      if (found.complete) {
        yield* await this.streamComplete(key, at, last);
        return;
      }
      if (found.size === 0) throw recordingErrors.notFound(key); // deleted meanwhile
      pieces = [...found.staged.segments, ...found.staged.chunks];
    }
  }
}

function remember(seen: Set<string>, key: string): string {
  seen.add(key);
  return key;
}
