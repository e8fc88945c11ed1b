/**
 * Recordings as files under one folder (the service's DATA_DIR/recordings). A recording being
 * appended is `<root>/.incomplete/<key>`; complete() renames it to `<root>/<key>`, atomic within
 * one file system, so a file at the top is always whole and a new process tells the two states
 * apart by the names alone. Keys never start with a dot (key.ts): none can be `.incomplete`.
 *
 * An append opens the file, writes synchronously and closes it: three system calls, a few
 * microseconds, no round trip through libuv's thread pool (as the embedded store's appender.ts).
 * Once write() returned the bytes are in the kernel's page cache and survive a SIGKILL of this
 * process. With `fsync` (TRANSCRIPT_FSYNC) the append also waits for fdatasync, off the event
 * loop, and then survives a power loss too. No descriptor is kept between appends: one chunk
 * every two seconds gains nothing from it, and nothing can then write through a descriptor to a
 * file that was renamed or deleted meanwhile.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { errors } from '@notetaker/contracts';
import { recordingErrors, translatingErrors } from './errors.js';
import { assertByteCount, assertRange, assertRecordingKey, isRecordingKey } from './key.js';
import type { RecordingStat, RecordingStorage } from './port.js';
import { KeyedSerial } from './concurrency.js';

const fdatasync = promisify(fs.fdatasync);
const fsyncFd = promisify(fs.fsync);

export const INCOMPLETE_DIR = '.incomplete';

export interface FilesystemRecordingOptions {
  /** The folder that holds the recordings; created on first append. */
  root: string;
  /** Wait for fdatasync on every append (default true), as TRANSCRIPT_FSYNC says. */
  fsync?: boolean;
}

export class FilesystemRecordingStorage implements RecordingStorage {
  readonly description: string;
  private readonly root: string;
  private readonly incompleteDir: string;
  private readonly fsync: boolean;
  private readonly serial = new KeyedSerial();

  constructor(options: FilesystemRecordingOptions) {
    this.root = path.resolve(options.root);
    this.incompleteDir = path.join(this.root, INCOMPLETE_DIR);
    this.fsync = options.fsync ?? true;
    this.description = `files under ${this.root}`;
  }

  async append(key: string, offset: number, bytes: Buffer): Promise<{ size: number }> {
    assertRecordingKey(key);
    assertByteCount('offset', offset);
    return this.serial.run(key, async () => {
      const done = statOf(this.finalPath(key));
      if (done) {
        if (offset + bytes.length <= done.size) return { size: done.size };
        throw recordingErrors.complete(key, done.size);
      }
      // Checked before the file is opened: a refused first chunk must not leave an empty recording.
      const stored = statOf(this.incompletePath(key))?.size ?? 0;
      if (offset > stored) throw recordingErrors.gap(key, offset, stored);
      if (offset + bytes.length <= stored) return { size: stored };
      const fd = this.guard(() => {
        fs.mkdirSync(this.incompleteDir, { recursive: true });
        // O_APPEND: every write lands at the end, whatever the descriptor's position.
        return fs.openSync(this.incompletePath(key), 'a', 0o644);
      });
      try {
        const size = fs.fstatSync(fd).size;
        if (offset > size) throw recordingErrors.gap(key, offset, size);
        if (offset + bytes.length <= size) return { size };
        // A retry that overlaps the end (a chunk cut short by a full disk) adds only what is new.
        const fresh = bytes.subarray(size - offset);
        let written = 0;
        this.guard(() => {
          while (written < fresh.length) written += fs.writeSync(fd, fresh, written);
        });
        if (this.fsync) await this.guardAsync(() => fdatasync(fd));
        return { size: size + fresh.length };
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  async complete(key: string): Promise<{ size: number }> {
    assertRecordingKey(key);
    return this.serial.run(key, async () => {
      const done = statOf(this.finalPath(key));
      if (done) return { size: done.size };
      const incomplete = statOf(this.incompletePath(key));
      if (!incomplete) throw recordingErrors.notFound(key);
      await this.guardAsync(() => fs.promises.rename(this.incompletePath(key), this.finalPath(key)));
      // The rename itself survives a power loss once both folders' entries are on disk.
      if (this.fsync) await Promise.all([this.syncFile(this.root), this.syncFile(this.incompleteDir)]);
      return { size: incomplete.size };
    });
  }

  async stat(key: string): Promise<RecordingStat | null> {
    assertRecordingKey(key);
    // The incomplete name first: a complete() renaming between the two looks ends up found at the top.
    const incomplete = statOf(this.incompletePath(key));
    if (incomplete) return { size: incomplete.size, complete: false };
    const done = statOf(this.finalPath(key));
    return done ? { size: done.size, complete: true } : null;
  }

  async size(key: string): Promise<number | null> {
    return (await this.stat(key))?.size ?? null;
  }

  async read(key: string, start: number, endInclusive: number): Promise<Readable> {
    assertRecordingKey(key);
    assertRange(start, endInclusive);
    // An open descriptor follows the file through complete()'s rename: the read stays whole.
    const handle = (await openForRead(this.incompletePath(key))) ?? (await openForRead(this.finalPath(key)));
    if (!handle) throw recordingErrors.notFound(key);
    const { size } = await handle.stat();
    if (start >= size) {
      await handle.close();
      throw recordingErrors.range(key, start, size);
    }
    return handle.createReadStream({ start, end: Math.min(endInclusive, size - 1) });
  }

  async delete(key: string): Promise<boolean> {
    assertRecordingKey(key);
    return this.serial.run(key, async () => {
      const removed = await Promise.all([
        unlinkIfPresent(this.incompletePath(key)),
        unlinkIfPresent(this.finalPath(key)),
      ]);
      return removed.includes(true);
    });
  }

  async *keys(): AsyncIterable<string> {
    const seen = new Set<string>();
    for (const dir of [this.root, this.incompleteDir]) {
      const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
      for (const entry of entries) {
        // Anything else in the folder (a `.incomplete` folder, an editor's backup) is not a recording.
        if (!entry.isFile() || seen.has(entry.name) || !isRecordingKey(entry.name)) continue;
        seen.add(entry.name);
        yield entry.name;
      }
    }
  }

  async close(): Promise<void> {
    await this.serial.idle();
  }

  private finalPath(key: string): string {
    return inside(this.root, key);
  }

  private incompletePath(key: string): string {
    return inside(this.incompleteDir, key);
  }

  private async syncFile(file: string): Promise<void> {
    const fd = fs.openSync(file, 'r');
    try {
      await this.guardAsync(() => fsyncFd(fd));
    } finally {
      fs.closeSync(fd);
    }
  }

  /** A full disk becomes a `storage_full` error that says so; anything else is thrown as it is. */
  private guard<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      throw this.failure(err);
    }
  }

  private guardAsync<T>(step: () => Promise<T>): Promise<T> {
    return translatingErrors(step, (err) => this.failure(err));
  }

  private failure(err: unknown): unknown {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return recordingErrors.storageFull(this.root);
    return err;
  }
}

/** `dir/key`, checked once more to be a direct child of `dir` (the key was validated already). */
function inside(dir: string, key: string): string {
  const file = path.join(dir, key);
  if (path.dirname(file) !== dir) throw errors.badRequest('recording key escapes the storage folder', 'key');
  return file;
}

function statOf(file: string): fs.Stats | null {
  return fs.statSync(file, { throwIfNoEntry: false }) ?? null;
}

async function openForRead(file: string): Promise<fs.promises.FileHandle | null> {
  try {
    return await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function unlinkIfPresent(file: string): Promise<boolean> {
  try {
    await fs.promises.unlink(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
