/**
 * Where the S3 adapter keeps a recording in the bucket (under an optional prefix P):
 *
 * - `P<key>`: the complete recording, one plain object (what a download or a pre-signed URL reads).
 * - `P.staging/<key>/`: a recording being appended, as plain objects, so all of it is readable:
 *   - `s<start>`: a segment, 5 MiB or more, bytes [start, start + size) of the recording;
 *   - `c<start>`: a chunk, the new bytes of one append, after the last segment;
 *   - `upload`: the id of the multipart upload complete() started (it survives a crash of complete).
 *
 * Starts are zero-padded to 15 digits so the bucket lists them in byte order. Keys never start
 * with a dot (key.ts), so no key is `.staging`. What the listing of a staging folder means is
 * decided here alone (parseStaged), the same for an append after a restart, a read and complete.
 */
export interface Piece {
  /** Object name in the bucket. */
  name: string;
  /** First byte of the recording it holds. */
  start: number;
  size: number;
}

export interface Staged {
  /** Every object under the staging folder, whatever it holds (all go once the recording is complete). */
  names: string[];
  /** Contiguous from byte 0. */
  segments: Piece[];
  /** Contiguous from the end of the last segment. */
  chunks: Piece[];
  /** End of the last segment: where the chunks start. */
  segmentsEnd: number;
  /** Bytes stored: the end of the last chunk, or of the last segment. */
  size: number;
  /** complete() started a multipart upload and has not cleaned up after it yet. */
  hasUpload: boolean;
}

const DIGITS = 15;
const PIECE = /^([sc])(\d{15})$/;

export class S3Layout {
  /** `prefix` as given, with one `/` after it when it has none ('' stays ''). */
  readonly prefix: string;

  constructor(prefix = '') {
    this.prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
  }

  finalName(key: string): string {
    return `${this.prefix}${key}`;
  }

  /** The folder of every staging folder, for listing the recordings in progress. */
  get stagingRoot(): string {
    return `${this.prefix}.staging/`;
  }

  stagingDir(key: string): string {
    return `${this.stagingRoot}${key}/`;
  }

  segmentName(key: string, start: number): string {
    return `${this.stagingDir(key)}s${pad(start)}`;
  }

  chunkName(key: string, start: number): string {
    return `${this.stagingDir(key)}c${pad(start)}`;
  }

  uploadName(key: string): string {
    return `${this.stagingDir(key)}upload`;
  }

  /**
   * The recording a staging folder holds. After a crash some objects can be left over: chunks
   * already copied into a segment (a crash between writing the segment and deleting them) lie
   * before the segments' end and are skipped. Anything after a hole cannot come from this adapter
   * (an append past the end is refused) and is not part of the recording either.
   */
  parseStaged(key: string, objects: Array<{ name: string; size: number }>): Staged {
    const dir = this.stagingDir(key);
    const segments: Piece[] = [];
    const chunks: Piece[] = [];
    let hasUpload = false;
    for (const { name, size } of objects) {
      const local = name.slice(dir.length);
      if (local === 'upload') hasUpload = true;
      const match = PIECE.exec(local);
      if (!match || size <= 0) continue;
      (match[1] === 's' ? segments : chunks).push({ name, start: Number(match[2]), size });
    }
    const byStart = (a: Piece, b: Piece) => a.start - b.start;
    const contiguousSegments = contiguous(segments.sort(byStart), 0);
    const segmentsEnd = end(contiguousSegments, 0);
    const fresh = chunks.sort(byStart).filter((c) => c.start >= segmentsEnd);
    const contiguousChunks = contiguous(fresh, segmentsEnd);
    return {
      names: objects.map((o) => o.name),
      segments: contiguousSegments,
      chunks: contiguousChunks,
      segmentsEnd,
      size: end(contiguousChunks, segmentsEnd),
      hasUpload,
    };
  }
}

/** What a complete object should be served as (a pre-signed download shows it to a browser). */
export function contentTypeOf(key: string): string {
  if (key.endsWith('.ogg') || key.endsWith('.opus')) return 'audio/ogg';
  return 'application/octet-stream';
}

function pad(n: number): string {
  return String(n).padStart(DIGITS, '0');
}

/** The pieces that follow one another from `from` without a hole or an overlap. */
function contiguous(sorted: Piece[], from: number): Piece[] {
  const out: Piece[] = [];
  let at = from;
  for (const piece of sorted) {
    if (piece.start !== at) break;
    out.push(piece);
    at += piece.size;
  }
  return out;
}

function end(pieces: Piece[], from: number): number {
  const last = pieces.at(-1);
  return last ? last.start + last.size : from;
}
