/**
 * A collection's datafile (`<name>.db`): one JSON line per write, in the format nedb wrote (the
 * embedded adapter's engine until it had one of its own), so the files of earlier versions load
 * as they are: a document (Dates as `{"$$date": ms}`), `{"$$deleted": true, "_id"}` for a removal,
 * `{"$$indexCreated": {fieldName, unique, sparse}}` and `{"$$indexRemoved": fieldName}`. The last
 * line for an `_id` wins. A rewrite (compaction) goes to `<name>.db~`, is flushed, then renamed
 * over the file; a crash between leaves the `~` file, which the next load takes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IndexSpec } from './doc-indexes.js';
import type { Raw } from './doc-values.js';
import { replaceFile, writeAll } from './file-writes.js';

/** More than this share of unreadable lines and the file is refused rather than half loaded. */
const CORRUPT_SHARE = 0.1;
const WRITE_CHUNK = 1 << 20;

export interface Loaded {
  docs: Map<string, Raw>;
  indexes: Map<string, IndexSpec>;
  /** Lines read: more than the documents and indexes means superseded lines a rewrite drops. */
  lines: number;
}

export function serialize(value: Record<string, unknown>): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, field) {
    const raw = this[key];
    return raw instanceof Date ? { $$date: raw.getTime() } : field;
  });
}

function deserialize(line: string): Record<string, unknown> {
  return JSON.parse(line, (key, value) => {
    if (key === '$$date') return new Date(value as number);
    if (value !== null && typeof value === 'object' && (value as { $$date?: unknown }).$$date instanceof Date)
      return (value as { $$date: Date }).$$date;
    return value;
  }) as Record<string, unknown>;
}

export const deletion = (id: string) => serialize({ $$deleted: true, _id: id });
export const indexCreated = (spec: IndexSpec) => serialize({ $$indexCreated: spec });
export const indexRemoved = (fieldName: string) => serialize({ $$indexRemoved: fieldName });

/** Reads `file` (or the rewrite a crash left beside it), line by line; empty when neither exists. */
export async function loadDatafile(file: string): Promise<Loaded> {
  const loaded: Loaded = { docs: new Map(), indexes: new Map(), lines: 0 };
  if (!fs.existsSync(file)) {
    if (!fs.existsSync(`${file}~`)) return loaded;
    fs.renameSync(`${file}~`, file);
  }
  let corrupt = 0;
  let rest = '';
  const take = (line: string) => {
    if (line === '') return;
    loaded.lines++;
    try {
      apply(loaded, deserialize(line));
    } catch {
      corrupt++;
    }
  };
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: WRITE_CHUNK })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) take(line);
  }
  take(rest);
  if (loaded.lines > 0 && corrupt / loaded.lines > CORRUPT_SHARE) {
    throw new Error(`${file}: ${corrupt} of ${loaded.lines} lines are unreadable; refusing to load it and lose them`);
  }
  return loaded;
}

function apply(loaded: Loaded, entry: Record<string, unknown>): void {
  if (typeof entry._id === 'string') {
    if (entry.$$deleted === true) loaded.docs.delete(entry._id);
    else loaded.docs.set(entry._id, entry as Raw);
    return;
  }
  const created = entry.$$indexCreated as Partial<IndexSpec> | undefined;
  if (created && typeof created.fieldName === 'string') {
    const { fieldName, unique = false, sparse = false } = created;
    loaded.indexes.set(fieldName, { fieldName, unique, sparse });
  } else if (typeof entry.$$indexRemoved === 'string') {
    loaded.indexes.delete(entry.$$indexRemoved);
  } else {
    throw new Error('neither a document nor an index');
  }
}

/** Writes the documents and index definitions as the whole new file, crash-safe (see above). */
export function rewriteDatafile(file: string, docs: Iterable<Raw>, indexes: IndexSpec[]): void {
  replaceFile(file, `${file}~`, (fd) => {
    let text = '';
    const flush = () => {
      writeAll(fd, Buffer.from(text, 'utf8'));
      text = '';
    };
    for (const doc of docs) {
      text += `${serialize(doc)}\n`;
      if (text.length >= WRITE_CHUNK) flush();
    }
    for (const spec of indexes) text += `${indexCreated(spec)}\n`;
    flush();
  });
  syncFolder(path.dirname(file));
}

/** The rename is durable once the folder is flushed too. */
function syncFolder(folder: string): void {
  const fd = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
