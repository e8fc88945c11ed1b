/**
 * The embedded adapter's history log (port.ts): a folder `<name>.history/` with one file per key
 * (the key in base64url), one record per line, oldest first. In memory there are only two numbers
 * per key touched since start (its records and bytes), so memory follows the number of keys and
 * not their records: a collection would hold every record in the heap, and a scheduler with 10,000 tasks
 * keeping 1,000 executions each would hold ten million of them.
 *
 * - append: one write at the end of the key's file; a write that fails part way is cut off again.
 * - newest: reads the file backwards from its end, in growing chunks, until enough lines are in.
 * - trim: writes the newest lines to a new file and renames it over the old one, so a crash leaves
 *   one or the other.
 * - A last line without its newline was torn by a crash (never acknowledged): it is cut off when
 *   its key is first touched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ServiceError } from '@notetaker/contracts';
import { writeAll } from './file-writes.js';
import { assertCounts, assertHistoryKey, assertHistoryRecord } from './history-rules.js';
import type { HistoryLog } from './port.js';

// Reading backwards starts small (most reads want a few records) and doubles up to a megabyte.
const FIRST_CHUNK_BYTES = 8 * 1024;
const MAX_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

interface KeyFile {
  records: number;
  bytes: number;
}

export class EmbeddedHistoryLog implements HistoryLog {
  private readonly keys = new Map<string, KeyFile>();
  private closed = false;

  constructor(
    readonly folder: string,
    private readonly assertOpen: () => void,
  ) {
    fs.mkdirSync(folder, { recursive: true });
    // A trim that crashed before its rename left its new file behind; the old one is intact.
    for (const name of fs.readdirSync(folder)) if (name.endsWith('.trim')) fs.rmSync(path.join(folder, name));
  }

  async append(key: string, record: string): Promise<number> {
    this.assertUsable();
    assertHistoryKey(key);
    assertHistoryRecord(record);
    const state = this.state(key);
    const line = Buffer.from(`${record}\n`);
    const fd = fs.openSync(this.fileOf(key), 'a', 0o644);
    try {
      writeAll(fd, line);
    } catch (err) {
      fs.ftruncateSync(fd, state.bytes);
      throw err;
    } finally {
      fs.closeSync(fd);
    }
    state.records++;
    state.bytes += line.length;
    return state.records;
  }

  async newest(key: string, limit: number, skip = 0): Promise<string[]> {
    this.assertUsable();
    assertHistoryKey(key);
    assertCounts(limit, skip);
    if (limit === 0) return [];
    return this.tail(key, skip + limit).slice(skip);
  }

  async trim(key: string, keep: number): Promise<void> {
    this.assertUsable();
    assertHistoryKey(key);
    assertCounts(keep);
    const state = this.state(key);
    if (state.records <= keep) return;
    if (keep === 0) return this.forget(key);
    const kept = Buffer.from(`${this.tail(key, keep).reverse().join('\n')}\n`);
    const file = this.fileOf(key);
    fs.writeFileSync(`${file}.trim`, kept, { mode: 0o644 });
    fs.renameSync(`${file}.trim`, file);
    this.keys.set(key, { records: keep, bytes: kept.length });
  }

  async drop(keys: string[]): Promise<void> {
    this.assertUsable();
    keys.forEach(assertHistoryKey);
    for (const key of keys) this.forget(key);
  }

  close(): void {
    this.closed = true;
  }

  private fileOf(key: string): string {
    return path.join(this.folder, Buffer.from(key).toString('base64url'));
  }

  private forget(key: string): void {
    fs.rmSync(this.fileOf(key), { force: true });
    this.keys.set(key, { records: 0, bytes: 0 });
  }

  /** The key's counts, read from its file the first time (cutting off a torn last line). */
  private state(key: string): KeyFile {
    let state = this.keys.get(key);
    if (state) return state;
    let text: Buffer;
    try {
      text = fs.readFileSync(this.fileOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      text = Buffer.alloc(0);
    }
    const bytes = text.lastIndexOf(NEWLINE) + 1;
    if (bytes < text.length) fs.truncateSync(this.fileOf(key), bytes);
    let records = 0;
    for (let at = text.indexOf(NEWLINE); at >= 0 && at < bytes; at = text.indexOf(NEWLINE, at + 1)) records++;
    state = { records, bytes };
    this.keys.set(key, state);
    return state;
  }

  /** The key's `count` newest lines, newest first, read backwards from the end of its file. */
  private tail(key: string, count: number): string[] {
    const { bytes } = this.state(key);
    if (bytes === 0) return [];
    const fd = fs.openSync(this.fileOf(key), 'r');
    const chunks: Buffer[] = [];
    let start = bytes;
    let newlines = 0;
    let chunkBytes = FIRST_CHUNK_BYTES;
    try {
      // count + 1 newlines (or the start of the file) bound the last `count` lines.
      while (start > 0 && newlines <= count) {
        const from = Math.max(0, start - chunkBytes);
        chunkBytes = Math.min(chunkBytes * 2, MAX_CHUNK_BYTES);
        const chunk = Buffer.allocUnsafe(start - from);
        if (fs.readSync(fd, chunk, 0, chunk.length, from) < chunk.length) throw corrupt(this.fileOf(key));
        for (const byte of chunk) if (byte === NEWLINE) newlines++;
        chunks.unshift(chunk);
        start = from;
      }
    } finally {
      fs.closeSync(fd);
    }
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    lines.pop(); // after the last newline
    return lines.slice(-count).reverse();
  }

  private assertUsable(): void {
    this.assertOpen();
    if (this.closed) throw new ServiceError('store_closed', `The history ${this.folder} is closed`, 503);
  }
}

function corrupt(file: string): Error {
  return new Error(`${file} changed under the store (shorter than it was); move it aside to start without it`);
}
