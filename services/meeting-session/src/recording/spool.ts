/**
 * The worker's recording spool: what transcript-store has not acknowledged yet, on the worker's
 * disk (RECORDING_SPOOL_DIR), so that an outage of storage or a SIGKILL of the worker costs no
 * audio. Every Ogg page the recorder makes is written here first and sent from here (uplink.ts).
 *
 * Layout, one folder per meeting:
 *
 *   <dir>/<meetingId>/meta.json            meeting, start, the batch being sent, what is acknowledged, gaps
 *   <dir>/<meetingId>/<offset>.ogg         segments of the file, named by their first byte's offset
 *
 * A segment holds whole pages (one write is one recorder batch) and is deleted once storage has
 * acknowledged all of it. A batch is cut from the unacknowledged bytes when it is sent (at most
 * MAX_BATCH_BYTES, at a page boundary) and written to meta.json with its sequence and offset
 * before its first attempt: every retry, in this process or the next, sends the same (sequence,
 * offset, bytes). Offsets are contiguous: audio refused for want of room is never written, so it
 * never gets an offset (the recorder fills that stretch with silence when room comes back).
 *
 * Writes are synchronous: a few KB a second per meeting into the page cache, microseconds each,
 * which a SIGKILL of the worker does not lose (a power loss may: there is no fsync). meta.json is
 * replaced by a rename, so it is always whole. One worker process per spool folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RecordingGap } from '@notetaker/contracts';
import { OPUS_RATE, wholePages } from './ogg.js';

/** Bytes in one append: under the bus's chunk limit (RECORDING_MAX_CHUNK_BYTES) and above an Ogg page's largest (65,307). */
export const MAX_BATCH_BYTES = 128 * 1024;
/** A new segment file once the current one holds this much. */
const SEGMENT_BYTES = 1024 * 1024;
const META = 'meta.json';
const SEGMENT = /^(\d{15})\.ogg$/;
/** Meeting ids are `meeting_<ms>_<alphanumerics>`: a folder name without a path in it. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A batch whose identity is fixed: sent as it is until storage acknowledges it. */
export interface Batch {
  sequence: number;
  offset: number;
  length: number;
  /** The recording's timeline once these bytes are in, in ms. */
  durationMs: number;
}

export interface SpoolMeta {
  meetingId: string;
  /** Epoch ms of the recording's first sample. */
  startedAt: number;
  nextSequence: number;
  /** Bytes storage acknowledged: the next batch starts here. */
  ackedOffset: number;
  ackedDurationMs: number;
  /** The batch being sent, once cut. */
  sealed: Batch | null;
  /** Stretches missing from the file so far (closed ones). */
  gaps: RecordingGap[];
  /** The meeting is over: nothing more comes; once everything is sent, the file is finished. */
  ended: boolean;
  /** Ended by a restart (the worker was lost): the timeline reached this far (ms) when the meeting was lost. */
  lostAtMs?: number;
}

interface Segment {
  offset: number;
  size: number;
}

/** Whether `dir` holds a spool of the meeting (a process that shares the disk but not the Spool object asks). */
export const spoolHolds = (dir: string, meetingId: string) =>
  SAFE_ID.test(meetingId) && fs.existsSync(path.join(dir, meetingId, META));

const segmentName = (offset: number) => `${String(offset).padStart(15, '0')}.ogg`;
const msOf = (samples: number) => Math.round((samples * 1000) / OPUS_RATE);

/** The spool folder of a worker: its meetings' spools and the bytes they hold together. */
export class Spool {
  private held = 0;
  private readonly open = new Map<string, MeetingSpool>();

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /** Bytes on disk in every meeting's segments. */
  get bytes(): number {
    return this.held;
  }

  get meetings(): number {
    return this.open.size;
  }

  /** Whether `bytes` more fit under RECORDING_SPOOL_MAX_MB. */
  hasRoom(bytes: number): boolean {
    return this.held + bytes <= this.maxBytes;
  }

  has(meetingId: string): boolean {
    return this.open.has(meetingId) || spoolHolds(this.dir, meetingId);
  }

  /** A new meeting's spool (its recording starts now). */
  create(meetingId: string, startedAt: number): MeetingSpool {
    if (!SAFE_ID.test(meetingId)) throw new Error(`not a meeting id for a spool folder: ${JSON.stringify(meetingId)}`);
    const folder = path.join(this.dir, meetingId);
    if (this.has(meetingId)) throw new Error(`a spool exists already for ${meetingId}`);
    fs.mkdirSync(folder, { recursive: true });
    const meta: SpoolMeta = {
      meetingId,
      startedAt,
      nextSequence: 0,
      ackedOffset: 0,
      ackedDurationMs: 0,
      sealed: null,
      gaps: [],
      ended: false,
    };
    const spool = new MeetingSpool(this, folder, meta, []);
    spool.saveMeta();
    this.open.set(meetingId, spool);
    return spool;
  }

  /**
   * The spools a previous process left (killed, or stopped before storage took everything), not
   * open in this one; a folder that cannot be read is named in `unreadable` and left as it is.
   */
  leftovers(): { spools: MeetingSpool[]; unreadable: Array<{ folder: string; error: string }> } {
    const spools: MeetingSpool[] = [];
    const unreadable: Array<{ folder: string; error: string }> = [];
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    for (const name of names.sort()) {
      if (!SAFE_ID.test(name) || this.open.has(name)) continue;
      const folder = path.join(this.dir, name);
      try {
        const spool = MeetingSpool.reopen(this, folder);
        this.open.set(name, spool);
        spools.push(spool);
      } catch (err) {
        unreadable.push({ folder, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return { spools, unreadable };
  }

  /** @internal MeetingSpool's accounting. */
  count(delta: number): void {
    this.held += delta;
  }

  /** @internal */
  forget(meetingId: string): void {
    this.open.delete(meetingId);
  }
}

/** One meeting's spool. Not safe for two writers: the recorder writes, its uplink seals and acknowledges. */
export class MeetingSpool {
  /** The file's length so far: where the next write goes. */
  private endOffset: number;
  /** The timeline's length at `end`, in ms. */
  private endDurationMs: number;
  private removed = false;

  constructor(
    private readonly spool: Spool,
    private readonly folder: string,
    readonly meta: SpoolMeta,
    private readonly segments: Segment[],
  ) {
    const last = segments.at(-1);
    this.endOffset = last ? last.offset + last.size : meta.ackedOffset;
    this.endDurationMs = meta.sealed?.durationMs ?? meta.ackedDurationMs;
    for (const s of segments) spool.count(s.size);
  }

  /** A folder a previous process wrote: the last segment cut back to its last whole page (a write the kill cut short). */
  static reopen(spool: Spool, folder: string): MeetingSpool {
    const meta = JSON.parse(fs.readFileSync(path.join(folder, META), 'utf8')) as SpoolMeta;
    if (meta.meetingId !== path.basename(folder) || typeof meta.ackedOffset !== 'number')
      throw new Error('meta.json is not the spool meta of this folder');
    const segments: Segment[] = fs
      .readdirSync(folder)
      .map((name) => SEGMENT.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ offset: Number(m[1]), size: fs.statSync(path.join(folder, m[0])).size }))
      .sort((a, b) => a.offset - b.offset);
    for (let i = 1; i < segments.length; i++) {
      if (segments[i].offset !== segments[i - 1].offset + segments[i - 1].size)
        throw new Error(`segment ${segmentName(segments[i].offset)} does not follow the one before`);
    }
    const last = segments.at(-1);
    let endDurationMs = meta.sealed?.durationMs ?? meta.ackedDurationMs;
    if (last) {
      const file = path.join(folder, segmentName(last.offset));
      const whole = wholePages(fs.readFileSync(file));
      if (whole.length < last.size) fs.truncateSync(file, whole.length);
      last.size = whole.length;
      if (whole.length > 0) endDurationMs = msOf(whole.samples);
    }
    const reopened = new MeetingSpool(
      spool,
      folder,
      meta,
      segments.filter((s) => s.size > 0),
    );
    reopened.endDurationMs = Math.max(reopened.endDurationMs, endDurationMs);
    return reopened;
  }

  get meetingId(): string {
    return this.meta.meetingId;
  }

  /** Bytes storage has not acknowledged yet. */
  get pendingBytes(): number {
    return this.endOffset - this.meta.ackedOffset;
  }

  /** Audio written but not acknowledged, in ms of the timeline. */
  get pendingMs(): number {
    return Math.max(0, this.endDurationMs - this.meta.ackedDurationMs);
  }

  get durationMs(): number {
    return this.endDurationMs;
  }

  /** Appends whole Ogg pages; `durationMs`: the timeline's length once they are in. Throws what the disk says (ENOSPC). */
  write(pages: Buffer, durationMs: number): void {
    if (pages.length === 0 || this.removed) return;
    let current = this.segments.at(-1);
    if (!current || current.offset + current.size !== this.endOffset || current.size >= SEGMENT_BYTES) {
      current = { offset: this.endOffset, size: 0 };
      this.segments.push(current);
    }
    const file = path.join(this.folder, segmentName(current.offset));
    try {
      fs.appendFileSync(file, pages);
    } catch (err) {
      // A write cut short would leave half a page that every later page follows: cut it off.
      try {
        if (current.size === 0) fs.rmSync(file, { force: true });
        else fs.truncateSync(file, current.size);
      } catch {
        // The next reopen cuts the last segment back to its whole pages all the same.
      }
      if (current.size === 0) this.segments.pop();
      throw err;
    }
    current.size += pages.length;
    this.endOffset += pages.length;
    this.endDurationMs = durationMs;
    this.spool.count(pages.length);
  }

  /**
   * The batch to send now with its bytes: the one cut before (until acknowledged), else a new one
   * cut from what is pending; null when everything is acknowledged.
   */
  next(): { batch: Batch; bytes: Buffer } | null {
    if (this.removed) return null;
    if (this.meta.sealed) return { batch: this.meta.sealed, bytes: this.read(this.meta.sealed) };
    const from = this.meta.ackedOffset;
    if (this.endOffset === from) return null;
    const segment = this.segments.find((s) => s.offset <= from && from < s.offset + s.size);
    if (!segment) throw new Error(`the spool of ${this.meetingId} has no segment holding byte ${from}`);
    const available = Math.min(segment.offset + segment.size - from, MAX_BATCH_BYTES);
    const bytes = this.readAt(segment, from, available);
    const whole = wholePages(bytes);
    if (whole.length === 0) throw new Error(`the spool of ${this.meetingId} holds no whole Ogg page at byte ${from}`);
    const batch: Batch = {
      sequence: this.meta.nextSequence,
      offset: from,
      length: whole.length,
      durationMs: whole.samples > 0 ? msOf(whole.samples) : this.meta.ackedDurationMs,
    };
    this.meta.nextSequence++;
    this.meta.sealed = batch;
    this.saveMeta();
    return { batch, bytes: bytes.subarray(0, whole.length) };
  }

  /** Storage holds `batch`: its segments go once all their bytes are acknowledged. */
  acknowledged(batch: Batch): void {
    if (this.removed || this.meta.sealed?.sequence !== batch.sequence) return;
    this.meta.ackedOffset = batch.offset + batch.length;
    this.meta.ackedDurationMs = Math.max(this.meta.ackedDurationMs, batch.durationMs);
    this.meta.sealed = null;
    while (this.segments.length > 0 && this.segments[0].offset + this.segments[0].size <= this.meta.ackedOffset) {
      const done = this.segments.shift()!;
      fs.rmSync(path.join(this.folder, segmentName(done.offset)), { force: true });
      this.spool.count(-done.size);
    }
    this.saveMeta();
  }

  /** The gaps so far, kept for a restart. */
  setGaps(gaps: RecordingGap[]): void {
    this.meta.gaps = gaps;
    this.saveMeta();
  }

  /** Nothing more will be written: once everything is sent, the file is finished with `gaps` (and `lostAtMs`). */
  close(gaps: RecordingGap[], lostAtMs?: number): void {
    this.meta.gaps = gaps;
    this.meta.ended = true;
    if (lostAtMs !== undefined) this.meta.lostAtMs = lostAtMs;
    this.saveMeta();
  }

  /** The meeting's recording is finished (or storage will take no more of it): the folder goes. */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    for (const s of this.segments.splice(0)) this.spool.count(-s.size);
    fs.rmSync(this.folder, { recursive: true, force: true });
    this.spool.forget(this.meetingId);
  }

  /** @internal */
  saveMeta(): void {
    if (this.removed) return;
    const file = path.join(this.folder, META);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(this.meta));
    fs.renameSync(`${file}.tmp`, file);
  }

  private read(batch: Batch): Buffer {
    const segment = this.segments.find((s) => s.offset <= batch.offset && batch.offset < s.offset + s.size);
    if (!segment || batch.offset + batch.length > segment.offset + segment.size)
      throw new Error(`the spool of ${this.meetingId} lost the bytes of batch ${batch.sequence}`);
    return this.readAt(segment, batch.offset, batch.length);
  }

  private readAt(segment: Segment, offset: number, length: number): Buffer {
    const fd = fs.openSync(path.join(this.folder, segmentName(segment.offset)), 'r');
    try {
      const bytes = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const n = fs.readSync(fd, bytes, got, length - got, offset - segment.offset + got);
        if (n === 0) break;
        got += n;
      }
      return bytes.subarray(0, got);
    } finally {
      fs.closeSync(fd);
    }
  }
}
