/**
 * How the embedded adapter writes its files: whole buffers (one write may take only part of one),
 * and whole files replaced so that a crash never leaves one half written.
 */
import fs from 'node:fs';

/** Writes all of `bytes` at the descriptor's position. */
export function writeAll(fd: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.length) written += fs.writeSync(fd, bytes, written);
}

/**
 * Replaces `file` with what `write` writes to `next`, a new file beside it: flushed to disk, then
 * renamed over `file` (atomic), so a crash leaves the old file whole, perhaps with `next` beside
 * it. A write that fails removes `next` and throws, leaving `file` as it was.
 */
export function replaceFile(file: string, next: string, write: (fd: number) => void): void {
  const fd = fs.openSync(next, 'w', 0o644);
  try {
    write(fd);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(next, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(next, file);
}
