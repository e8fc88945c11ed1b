/**
 * The catalog: projects are the folders under CONTENT_ROOT/deployed-md-files/docs (including ones
 * made by hand), their history the markdown files in `<project>/meetings/`. The file system is the
 * truth; this service keeps an index of it in its own store so that answering is cheap:
 *
 * - the project list re-reads a project's `meetings/` folder only when that folder's mtime
 *   changed (a file added, removed or renamed there changes it), and its metadata file only when
 *   that file's mtime or size changed;
 * - a project's history stats each file and re-reads the front matter only of files whose
 *   (inode, mtime, size) changed, so a hand edit in place is seen too.
 *
 * An mtime younger than RACY_MS is not trusted (a change in the same clock tick as our read would
 * keep the same mtime on coarse file systems): such a folder is read again next time.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DOCS_DIR, PROJECT_ID, errors, type Project, type ProjectMeeting } from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';
import { entryFrom, newestFirst } from './entries.js';
import { parseFrontMatter, readHead } from './front-matter.js';
import { METADATA_FILES, nameFromId, nameFromMetadata } from './project-name.js';

export const RACY_MS = 2000;
const UNTRUSTED = -1;
const STAT_CONCURRENCY = 32;

interface ProjectRow {
  [key: string]: unknown;
  _id?: string;
  name: string;
  /** `<file>:<mtimeMs>:<size>` of the metadata file the name came from, or null. */
  metadataKey: string | null;
  meetingsMtimeMs: number | null;
  hasMeetings: boolean;
}

interface MeetingRow {
  [key: string]: unknown;
  _id?: string;
  project: string;
  filename: string;
  fileKey: string;
  entry: ProjectMeeting;
}

export class Catalog {
  private readonly projects: Collection<ProjectRow>;
  private readonly meetingRows: Collection<MeetingRow>;
  private readonly docsRoot: string;
  private listing: Promise<Project[]> | null = null;
  private readonly reading = new Map<string, Promise<ProjectMeeting[]>>();

  constructor(store: Store, contentRoot: string) {
    this.projects = store.collection<ProjectRow>('projects');
    this.meetingRows = store.collection<MeetingRow>('meetings');
    this.docsRoot = path.join(path.resolve(contentRoot), DOCS_DIR);
  }

  async init(): Promise<void> {
    await this.meetingRows.createIndex({ project: 1 });
  }

  /** Every project, sorted by id. Concurrent callers share one scan. */
  list(): Promise<Project[]> {
    this.listing ??= this.scanProjects().finally(() => (this.listing = null));
    return this.listing;
  }

  /** A project's history, newest first; 404 `Project not found` when there is no such folder. */
  meetings(projectId: string): Promise<ProjectMeeting[]> {
    if (!PROJECT_ID.test(projectId)) {
      return Promise.reject(errors.badRequest('projectId must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', 'projectId'));
    }
    let pending = this.reading.get(projectId);
    if (!pending) {
      pending = this.scanMeetings(projectId).finally(() => this.reading.delete(projectId));
      this.reading.set(projectId, pending);
    }
    return pending;
  }

  private async scanProjects(): Promise<Project[]> {
    const ids = (await readDir(this.docsRoot))
      .filter((d) => d.isDirectory() && PROJECT_ID.test(d.name))
      .map((d) => d.name);
    const known = new Map((await this.projects.find({})).map((row) => [row._id as string, row]));
    const present = new Set(ids);
    for (const id of known.keys()) {
      if (present.has(id)) continue;
      await this.projects.deleteOne({ _id: id });
      await this.meetingRows.deleteMany({ project: id });
    }
    const projects = await mapLimit(ids, STAT_CONCURRENCY, (id) => this.refreshProject(id, known.get(id)));
    return projects.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private async refreshProject(id: string, known: ProjectRow | undefined): Promise<Project> {
    const dir = path.join(this.docsRoot, id);
    const meetingsDir = path.join(dir, 'meetings');
    const [entries, meetingsStat] = await Promise.all([readDir(dir), lstatOrNull(meetingsDir)]);

    const mtime = meetingsStat?.isDirectory() ? meetingsStat.mtimeMs : null;
    let hasMeetings: boolean;
    if (known && mtime !== null && known.meetingsMtimeMs === mtime) hasMeetings = known.hasMeetings;
    else hasMeetings = mtime !== null && (await readDir(meetingsDir)).some(isTranscriptFile);
    const meetingsMtimeMs = mtime !== null && Date.now() - mtime < RACY_MS ? UNTRUSTED : mtime;

    const metadataFile = METADATA_FILES.find((f) => entries.some((e) => e.isFile() && e.name === f));
    let metadataKey: string | null = null;
    let name: string | null = null;
    if (metadataFile) {
      const stat = await lstatOrNull(path.join(dir, metadataFile));
      if (stat) metadataKey = `${metadataFile}:${stat.mtimeMs}:${stat.size}`;
      if (stat && Date.now() - stat.mtimeMs < RACY_MS) metadataKey = null;
      name =
        known && metadataKey && known.metadataKey === metadataKey
          ? known.name
          : await nameFromMetadata(path.join(dir, metadataFile));
    }
    const row: ProjectRow = { name: name ?? nameFromId(id), metadataKey, meetingsMtimeMs, hasMeetings };
    if (!known || !sameRow(known, row)) await this.projects.updateOne({ _id: id }, { $set: row }, { upsert: true });
    return { id, name: row.name, hasMeetings };
  }

  private async scanMeetings(projectId: string): Promise<ProjectMeeting[]> {
    const dir = path.join(this.docsRoot, projectId);
    const stat = await lstatOrNull(dir);
    if (!stat?.isDirectory()) throw errors.notFound('Project not found');
    const meetingsDir = path.join(dir, 'meetings');
    const files = (await readDir(meetingsDir)).filter(isTranscriptFile).map((d) => d.name);
    const known = new Map((await this.meetingRows.find({ project: projectId })).map((row) => [row.filename, row]));

    const entries = await mapLimit(files, STAT_CONCURRENCY, async (filename) => {
      const file = path.join(meetingsDir, filename);
      const fileStat = await lstatOrNull(file);
      if (!fileStat?.isFile()) return null; // gone since the listing, or not a plain file
      const fileKey = `${fileStat.ino}:${fileStat.mtimeMs}:${fileStat.size}`;
      const row = known.get(filename);
      if (row && row.fileKey === fileKey) return row.entry;
      const head = await readHead(file).catch(() => null);
      if (head === null) return null;
      const entry = entryFrom(filename, parseFrontMatter(head), fileStat.mtime);
      // A file written in this very tick may change again unseen: keep no key for it.
      const trusted = Date.now() - fileStat.mtimeMs >= RACY_MS;
      await this.meetingRows.updateOne(
        { _id: `${projectId}/${filename}` },
        { $set: { project: projectId, filename, fileKey: trusted ? fileKey : '', entry } },
        { upsert: true },
      );
      return entry;
    });

    const present = new Set(files);
    for (const filename of known.keys()) {
      if (!present.has(filename)) await this.meetingRows.deleteOne({ _id: `${projectId}/${filename}` });
    }
    return entries.filter((e): e is ProjectMeeting => e !== null).sort(newestFirst);
  }
}

/** A saved transcript: a plain `.md` file, not hidden (our temporary files start with a dot). */
function isTranscriptFile(entry: { name: string; isFile(): boolean }): boolean {
  return entry.isFile() && entry.name.toLowerCase().endsWith('.md') && !entry.name.startsWith('.');
}

function sameRow(a: ProjectRow, b: ProjectRow): boolean {
  return (
    a.name === b.name &&
    a.metadataKey === b.metadataKey &&
    a.meetingsMtimeMs === b.meetingsMtimeMs &&
    a.hasMeetings === b.hasMeetings
  );
}

async function readDir(dir: string) {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
  }
}

async function lstatOrNull(file: string) {
  try {
    return await fs.lstat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
