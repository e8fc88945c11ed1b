/**
 * The embedded adapter's sequence log (port.ts): one file per log, `<name>.log`, appended with one
 * synchronous write per call (as appender.ts), and in memory only four numbers per page: its
 * first and last sequence, where its body starts in the file and how long it is. A collection
 * would keep every page in the heap (the embedded adapter holds whole collections there); a busy event stream
 * then made every garbage collection trace and copy it. Here the bodies stay on disk (in the page
 * cache while recent) and are read back with one positioned read per page.
 *
 * A record is a header line `{"key","first","last","bytes"}`, then `bytes` bytes of body and a
 * newline; dropping keys appends `{"drop":[...]}`. Loading replays the file and cuts off a torn
 * last record (the process died while writing it, so it was never acknowledged). Dropped pages
 * stay in the file until it is rewritten with only the live ones, once they are half of it.
 *
 * It only appends: a page must start after its key's last stored sequence (stricter than the
 * port's (key, first) rule, which is all a writer that continues its stream can run into).
 */
import fs from 'node:fs';
import { errors, ServiceError } from '@notetaker/contracts';
import { assertPage, isCount } from './collection-log.js';
import { replaceFile, writeAll } from './file-writes.js';
import type { LogPage, SequenceLog } from './port.js';

/** Per key, flat and oldest first: first, last, body offset, body bytes of each page. */
type PageIndex = number[];
const FIELDS = 4;
const MAX_HEADER_BYTES = 64 * 1024;
const READ_AHEAD_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export class EmbeddedSequenceLog implements SequenceLog {
  private index = new Map<string, PageIndex>();
  private fd: number;
  /** Bytes of complete records in the file. */
  private size = 0;
  /** Bytes of dropped pages' records still in the file. */
  private deadBytes = 0;
  private closed = false;

  constructor(
    readonly file: string,
    private readonly assertOpen: () => void,
  ) {
    this.fd = fs.openSync(file, 'a+', 0o644);
    this.load();
  }

  async append(pages: LogPage[]): Promise<void> {
    this.assertUsable();
    const lastOf = new Map<string, number>();
    for (const page of pages) {
      assertPage(page);
      if (page.first <= (lastOf.get(page.key) ?? this.last(page.key))) throw errors.duplicateKey();
      lastOf.set(page.key, page.last);
    }
    const sizes = pages.map((page) => Buffer.byteLength(page.body));
    const heads = pages.map((page, i) => headerLine(page.key, page.first, page.last, sizes[i]));
    let total = 0;
    for (let i = 0; i < pages.length; i++) total += Buffer.byteLength(heads[i]) + sizes[i] + 1;
    // Each part written into one buffer: joining them as text first would copy every body twice.
    const record = Buffer.allocUnsafe(total);
    const added: Array<[string, number, number, number, number]> = [];
    let offset = 0;
    for (let i = 0; i < pages.length; i++) {
      const { key, first, last, body } = pages[i];
      offset += record.write(heads[i], offset);
      added.push([key, first, last, this.size + offset, sizes[i]]);
      offset += record.write(body, offset);
      record[offset++] = NEWLINE;
    }
    this.write(record);
    for (const [key, first, last, bodyAt, bytes] of added) this.add(key, first, last, bodyAt, bytes);
  }

  async pagesAfter(key: string, afterSequence: number, limit: number): Promise<LogPage[]> {
    this.assertUsable();
    const pages = this.index.get(key);
    if (!pages) return [];
    const count = pages.length / FIELDS;
    // Pages follow each other, so their `last`s ascend: binary search for the first one after.
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pages[mid * FIELDS + 1] > afterSequence) hi = mid;
      else lo = mid + 1;
    }
    const found: LogPage[] = [];
    for (let i = lo; i < count && found.length < limit; i++) {
      const [first, last, bodyAt, bytes] = pages.slice(i * FIELDS, i * FIELDS + FIELDS);
      found.push({ key, first, last, body: this.read(bodyAt, bytes).toString() });
    }
    return found;
  }

  async lastSequence(key: string): Promise<number> {
    this.assertUsable();
    return this.last(key);
  }

  async drop(keys: string[]): Promise<void> {
    this.assertUsable();
    const present = keys.filter((key) => this.index.has(key));
    if (present.length === 0) return;
    this.write(Buffer.from(`${JSON.stringify({ drop: present })}\n`));
    for (const key of present) this.forget(key);
  }

  /** Rewrites the file with only the live pages, when the dropped ones are at least half of it. */
  compact(): void {
    if (this.closed || this.deadBytes === 0 || this.deadBytes * 2 < this.size) return;
    const index = new Map<string, PageIndex>();
    let size = 0;
    replaceFile(this.file, `${this.file}.compacting`, (out) => {
      for (const [key, pages] of this.index) {
        const moved: PageIndex = [];
        for (let i = 0; i < pages.length; i += FIELDS) {
          const [first, last, bodyAt, bytes] = pages.slice(i, i + FIELDS);
          const head = Buffer.from(headerLine(key, first, last, bytes));
          writeAll(out, Buffer.concat([head, this.read(bodyAt, bytes), Buffer.from('\n')]));
          moved.push(first, last, size + head.length, bytes);
          size += head.length + bytes + 1;
        }
        index.set(key, moved);
      }
    });
    fs.closeSync(this.fd);
    this.fd = fs.openSync(this.file, 'a+', 0o644);
    this.index = index;
    this.size = size;
    this.deadBytes = 0;
  }

  close(): void {
    if (this.closed) return;
    this.compact();
    this.closed = true;
    fs.closeSync(this.fd);
  }

  private last(key: string): number {
    const pages = this.index.get(key);
    return pages ? pages[pages.length - FIELDS + 1] : 0;
  }

  private add(key: string, first: number, last: number, bodyAt: number, bytes: number): void {
    let pages = this.index.get(key);
    if (!pages) this.index.set(key, (pages = []));
    pages.push(first, last, bodyAt, bytes);
  }

  private forget(key: string): void {
    const pages = this.index.get(key);
    if (!pages) return;
    for (let i = 0; i < pages.length; i += FIELDS) {
      const [first, last, , bytes] = pages.slice(i, i + FIELDS);
      this.deadBytes += Buffer.byteLength(headerLine(key, first, last, bytes)) + bytes + 1;
    }
    this.index.delete(key);
  }

  /** One write of whole records; if it fails part way (disk full), the part is cut off again. */
  private write(bytes: Buffer): void {
    try {
      writeAll(this.fd, bytes);
    } catch (err) {
      fs.ftruncateSync(this.fd, this.size);
      throw err;
    }
    this.size += bytes.length;
  }

  private read(position: number, bytes: number): Buffer {
    const buffer = Buffer.allocUnsafe(bytes);
    if (readFully(this.fd, buffer, bytes, position) < bytes) throw corrupt(this.file, position);
    return buffer;
  }

  /** Replays the file into the index; a torn last record is cut off, anything else wrong throws. */
  private load(): void {
    const size = fs.fstatSync(this.fd).size;
    const file = new ReadAhead(this.fd, size);
    let at = 0;
    while (at < size) {
      const head = file.bytes(at, MAX_HEADER_BYTES);
      const newline = head.indexOf(NEWLINE);
      if (newline < 0) {
        if (at + head.length >= size) break; // torn header
        throw corrupt(this.file, at);
      }
      let record: { key?: unknown; first?: unknown; last?: unknown; bytes?: unknown; drop?: unknown };
      try {
        record = JSON.parse(head.toString('utf8', 0, newline));
      } catch {
        throw corrupt(this.file, at);
      }
      const bodyAt = at + newline + 1;
      if (Array.isArray(record.drop)) {
        for (const key of record.drop) this.forget(String(key));
        at = bodyAt;
        continue;
      }
      const { key, first, last, bytes } = record;
      if (typeof key !== 'string' || !isCount(first) || !isCount(last) || !isCount(bytes)) {
        throw corrupt(this.file, at);
      }
      if (bodyAt + bytes + 1 > size) break; // torn body
      if (file.bytes(bodyAt + bytes, 1)[0] !== NEWLINE) throw corrupt(this.file, at);
      this.add(key, first, last, bodyAt, bytes);
      at = bodyAt + bytes + 1;
    }
    if (at < size) fs.ftruncateSync(this.fd, at);
    this.size = at;
  }

  private assertUsable(): void {
    this.assertOpen();
    if (this.closed) throw new ServiceError('store_closed', `The log ${this.file} is closed`, 503);
  }
}

/** Reads a file front to back through a 1 MB window: replaying a log reads each byte once. */
class ReadAhead {
  private buffer = Buffer.allocUnsafe(READ_AHEAD_BYTES);
  private start = 0;
  private length = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  /** Up to `length` bytes from `position`, fewer at the end of the file. */
  bytes(position: number, length: number): Buffer {
    const end = Math.min(position + length, this.size);
    if (position < this.start || end > this.start + this.length) {
      if (end - position > this.buffer.length) this.buffer = Buffer.allocUnsafe(end - position);
      this.start = position;
      this.length = readFully(this.fd, this.buffer, Math.min(this.buffer.length, this.size - position), position);
    }
    return this.buffer.subarray(position - this.start, Math.min(end, this.start + this.length) - this.start);
  }
}

/** Reads until `length` bytes are in or the file ends; returns how many were read. */
function readFully(fd: number, buffer: Buffer, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** `{"key":...,"first":...,"last":...,"bytes":...}` and a newline; numbers need no escaping. */
function headerLine(key: string, first: number, last: number, bytes: number): string {
  return `{"key":${JSON.stringify(key)},"first":${first},"last":${last},"bytes":${bytes}}\n`;
}

function corrupt(file: string, at: number): Error {
  return new Error(`${file} is corrupt at byte ${at}; move it aside to start without it`);
}
