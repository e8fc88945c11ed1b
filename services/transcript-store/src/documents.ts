/**
 * Transcript documents: the path reserved at start, the markdown file rewritten on each flush,
 * and reading it back. One store document per meeting (`documents`) records what the file holds,
 * so a flush renders only the segments that arrived since the last one (the rest is kept rendered
 * in memory while the meeting runs) and a restart knows what to index.
 *
 * The actor of a meeting is its one writer: it appends indexes in order and awaits each flush.
 * Flushes of one meeting are serialised here as well, so a retried flush cannot interleave.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  NO_DOCUMENT,
  ServiceError,
  errors,
  type Platform,
  type transcriptFlush,
  type transcriptOpen,
} from '@notetaker/contracts';
import type { Collection, Store } from '@notetaker/store';
import type { z } from 'zod';
import { ensureDirInside, writeFileAtomic } from './atomic-write.js';
import { defaultTitle, documentFileName, documentPath, resolveInside, safeTitlePart } from './document-path.js';
import {
  appendSegments,
  CHAT_HEADING,
  renderChat,
  renderFrontMatter,
  renderHeading,
  renderSegment,
} from './markdown.js';
import type { ChatMessages, StoredChatMessage } from './chat.js';
import type { Segments, StoredSegment } from './segments.js';

export interface DocumentMeta {
  [key: string]: unknown;
  _id?: string;
  meetingId: string;
  project: string;
  /** The title as given at start, exactly; displayTitle falls back to the default. */
  title: string | null;
  displayTitle: string;
  platform: Platform;
  startedAt: string;
  saveTranscript: boolean;
  documentPath: string | null;
  /** Lower-cased documentPath under a unique index: two meetings never get one file, on any file system. */
  pathKey?: string;
  status: 'in_progress' | 'completed';
  participants: string[];
  /** The caption language asked for at start (front matter); absent on records written before it. */
  language?: string | null;
  /** The bot account named by the latest flush that named one (front matter). */
  signedInAs?: string | null;
  /** The recording's status when the file was last written (absent: none). */
  recordingStatus?: string | null;
  /** Segments with index <= lastIndex are in the file; `written` of them. */
  lastIndex: number;
  written: number;
  /** Chat messages in the file's chat section (absent: none, or written before chat was kept). */
  chatWritten?: number;
  fileWritten: boolean;
  flushedAt: string | null;
}

export interface FlushResult {
  documentPath: string;
  segmentsWritten: number;
  totalSegments: number;
}

export interface FlushedSegments {
  meta: DocumentMeta;
  segments: StoredSegment[];
  /** Chat messages just written (search indexes them like segments); absent: none. */
  chat?: StoredChatMessage[];
}

/** The segments already in the file, rendered, and the last of them (the next may continue it). */
interface RenderedBody {
  body: string;
  written: number;
  last: StoredSegment | null;
}

const MAX_COPIES = 1000;
/** Characters per document page over the bus: at most 4 bytes each, well under 1 MB. */
const PAGE_CHARS = 128 * 1024;

export class Documents {
  readonly metas: Collection<DocumentMeta>;
  private readonly rendered = new Map<string, RenderedBody>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    store: Store,
    private readonly segments: Segments,
    private readonly contentRoot: string,
    private readonly options: {
      fsync: boolean;
      /** The meetings' chat messages, written as the document's last section. */
      chat?: ChatMessages;
      /** The meeting's recording, for the front matter's link (null: none). */
      recordingOf?: (meetingId: string) => Promise<{ url: string; status: string } | null>;
    },
  ) {
    this.metas = store.collection<DocumentMeta>('documents');
  }

  async init(): Promise<void> {
    await this.metas.createIndex({ pathKey: 1 }, { unique: true, sparse: true });
    await this.metas.createIndex({ saveTranscript: 1 });
  }

  /** Reserves the document path at start; the same meeting asking again gets the same answer. */
  async open(req: z.infer<typeof transcriptOpen>): Promise<string | null> {
    const existing = await this.metas.findOne({ _id: req.meetingId });
    if (existing) return existing.documentPath;
    const startedAt = new Date(req.startedAt).toISOString();
    // A lone UTF-16 surrogate cannot be written as UTF-8: it would come back as U+FFFD anyway.
    const given = req.title?.trim() ? wellFormed(req.title) : null;
    const base: DocumentMeta = {
      _id: req.meetingId,
      meetingId: req.meetingId,
      project: req.project,
      title: given,
      displayTitle: given ?? defaultTitle(req.platform),
      platform: req.platform,
      startedAt,
      saveTranscript: req.saveTranscript,
      documentPath: null,
      status: 'in_progress',
      participants: [],
      language: req.language ?? null,
      signedInAs: null,
      lastIndex: -1,
      written: 0,
      fileWritten: false,
      flushedAt: null,
    };
    if (!req.saveTranscript) return (await this.insertOrExisting(base)) ?? null;

    const titlePart = safeTitlePart(given) ?? defaultTitle(req.platform);
    for (let copy = 1; copy <= MAX_COPIES; copy++) {
      const relative = documentPath(req.project, documentFileName(startedAt, titlePart, copy));
      // A file put there by hand (or by an earlier instance) keeps its name; we take the next one.
      if (await exists(resolveInside(this.contentRoot, relative))) continue;
      const taken = await this.insertOrExisting({ ...base, documentPath: relative, pathKey: relative.toLowerCase() });
      if (taken !== undefined) return taken;
    }
    throw errors.conflict('Too many meetings with this title on this day');
  }

  /** The path stored for this meeting; undefined when the path was taken by another meeting. */
  private async insertOrExisting(meta: DocumentMeta): Promise<string | null | undefined> {
    try {
      await this.metas.insertOne(meta);
      return meta.documentPath;
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'duplicate_key')) throw err;
      const again = await this.metas.findOne({ _id: meta.meetingId });
      return again ? again.documentPath : undefined;
    }
  }

  /**
   * Writes the document with every segment stored so far. Null when the meeting saves none.
   * Without new segments, status or participants the file is left as it is.
   */
  flush(req: z.infer<typeof transcriptFlush>): Promise<{ result: FlushResult; fresh: FlushedSegments } | null> {
    return this.serialised(req.meetingId, async () => {
      const meta = await this.metas.findOne({ _id: req.meetingId });
      if (!meta) throw errors.notFound('Unknown meeting: open it first');
      if (!meta.saveTranscript || !meta.documentPath) return null;

      const fresh = await this.segments.after(meta.meetingId, meta.lastIndex);
      // A late periodic flush must not take a completed document back to in_progress.
      const status = meta.status === 'completed' ? 'completed' : req.status;
      const participants = [...new Set([...meta.participants, ...req.participants])];
      // A flush that names no account (an older sender) does not take back the one named before.
      const signedInAs = req.signedInAs ?? meta.signedInAs ?? null;
      const recording = (await this.options.recordingOf?.(meta.meetingId)) ?? null;
      const recordingStatus = recording?.status ?? null;
      const chat = (await this.options.chat?.stored(meta.meetingId)) ?? [];
      const chatWritten = meta.chatWritten ?? 0;
      const unchanged =
        fresh.length === 0 &&
        chat.length === chatWritten &&
        meta.fileWritten &&
        status === meta.status &&
        participants.length === meta.participants.length &&
        signedInAs === (meta.signedInAs ?? null) &&
        recordingStatus === (meta.recordingStatus ?? null);
      if (unchanged) {
        return {
          result: { documentPath: meta.documentPath, segmentsWritten: 0, totalSegments: meta.written },
          fresh: { meta, segments: [] },
        };
      }

      const previous = await this.renderedBody(meta);
      const startMs = Date.parse(meta.startedAt);
      const body = appendSegments(previous.body, fresh, startMs, previous.last);
      const content =
        renderFrontMatter({
          title: meta.displayTitle,
          meetingId: meta.meetingId,
          date: meta.startedAt,
          status,
          participants,
          platform: meta.platform,
          project: meta.project,
          language: meta.language,
          signedInAs,
          recording,
        }) +
        renderHeading(meta.displayTitle) +
        body +
        renderChat(chat, startMs);
      const target = resolveInside(this.contentRoot, meta.documentPath);
      await ensureDirInside(this.contentRoot, path.dirname(target));
      // Only the final file is synced to disk: a live meeting's file is rewritten every flush, and
      // one a power loss left empty is rendered again from the store by the next (renderedBody).
      // Syncing every periodic flush cost the live events' latency more than it protects.
      await writeFileAtomic(target, content, { fsync: this.options.fsync && status === 'completed' });

      const lastIndex = fresh.length ? fresh[fresh.length - 1].index : meta.lastIndex;
      const written = previous.written + fresh.length;
      const last = fresh.length ? fresh[fresh.length - 1] : previous.last;
      const update = {
        status,
        participants,
        signedInAs,
        recordingStatus,
        lastIndex,
        written,
        chatWritten: chat.length,
        fileWritten: true,
        flushedAt: new Date().toISOString(),
      };
      await this.metas.updateOne({ _id: meta.meetingId }, { $set: update });
      if (status === 'completed') this.rendered.delete(meta.meetingId);
      else this.rendered.set(meta.meetingId, { written, body, last });
      return {
        result: { documentPath: meta.documentPath, segmentsWritten: fresh.length, totalSegments: written },
        fresh: { meta: { ...meta, ...update }, segments: fresh, chat: chat.slice(chatWritten) },
      };
    });
  }

  /**
   * The segments already in the file, rendered: from memory while the meeting runs; after a
   * restart from the file itself when it still ends with the last segment we wrote (reading 1 MB
   * beats reading and rendering 10,000 segments, and keeps a fix made by hand in the file);
   * else rendered again from the store.
   */
  private async renderedBody(meta: DocumentMeta): Promise<RenderedBody> {
    const cached = this.rendered.get(meta.meetingId);
    if (cached && (cached.last?.index ?? -1) === meta.lastIndex && cached.written === meta.written) return cached;
    const startMs = Date.parse(meta.startedAt);
    const fromFile = await this.bodyInFile(meta, startMs);
    if (fromFile !== null) return fromFile;
    const earlier = meta.lastIndex < 0 ? [] : await this.segments.range(meta.meetingId, -1, meta.lastIndex);
    return {
      body: appendSegments('', earlier, startMs, null),
      written: earlier.length,
      last: earlier.length ? earlier[earlier.length - 1] : null,
    };
  }

  private async bodyInFile(meta: DocumentMeta, startMs: number): Promise<RenderedBody | null> {
    if (!meta.fileWritten || !meta.documentPath || meta.lastIndex < 0) return null;
    let content: string;
    try {
      content = await fs.readFile(resolveInside(this.contentRoot, meta.documentPath), 'utf8');
    } catch {
      return null;
    }
    // Our front matter has one value per line, so its end is the first `---` line after the start.
    const end = content.startsWith('---\n') ? content.indexOf('\n---\n', 3) : -1;
    const heading = renderHeading(meta.displayTitle);
    if (end < 0 || !content.startsWith(heading, end + 5)) return null;
    let body = content.slice(end + 5 + heading.length);
    // The chat section comes after the transcript's paragraphs, and is written whole every flush.
    const chatAt = meta.chatWritten ? body.lastIndexOf(`\n${CHAT_HEADING}`) : -1;
    if (chatAt >= 0) body = body.slice(0, chatAt + 1);
    // The last segment, and the one before it: whether the last began its own paragraph.
    const found = await this.segments.at(meta.meetingId, [meta.lastIndex - 1, meta.lastIndex]);
    const last = found.find((s) => s.index === meta.lastIndex);
    const previous = found.find((s) => s.index === meta.lastIndex - 1) ?? null;
    return last && body.endsWith(renderSegment(last, startMs, previous)) ? { body, written: meta.written, last } : null;
  }

  /** One page of the file as it is on disk (what was flushed, or edited by hand since). */
  async read(meetingId: string, offset: number, version?: string) {
    const meta = await this.metas.findOne({ _id: meetingId });
    if (!meta?.saveTranscript || !meta.documentPath || !meta.fileWritten) throw errors.notFound(NO_DOCUMENT);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(resolveInside(this.contentRoot, meta.documentPath), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw errors.notFound(NO_DOCUMENT);
      throw err;
    }
    try {
      const stat = await handle.stat();
      const current = `${stat.ino}-${stat.mtimeMs}-${stat.size}`;
      if (version !== undefined && version !== current) {
        throw new ServiceError('document_changed', 'The document changed while it was read', 409, true);
      }
      const text = await handle.readFile('utf8');
      let end = Math.min(text.length, offset + PAGE_CHARS);
      // Never split a surrogate pair between two pages.
      if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1])) end--;
      return {
        filename: path.posix.basename(meta.documentPath),
        documentPath: meta.documentPath,
        content: text.slice(offset, end),
        version: current,
        nextOffset: end < text.length ? end : null,
      };
    } finally {
      await handle.close();
    }
  }

  /** Every meeting whose document was written, with its written segments: the search index's source. */
  async *written(): AsyncGenerator<FlushedSegments> {
    const metas = await this.metas.find({ saveTranscript: true, fileWritten: true });
    for (const meta of metas) {
      const segments = await this.segments.range(meta.meetingId, -1, meta.lastIndex);
      const chat = (await this.options.chat?.stored(meta.meetingId)) ?? [];
      yield { meta, segments, chat: chat.slice(0, meta.chatWritten ?? 0) };
    }
  }

  private serialised<T>(meetingId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(meetingId) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.catch(() => undefined);
    this.locks.set(meetingId, settled);
    void settled.then(() => {
      if (this.locks.get(meetingId) === settled) this.locks.delete(meetingId);
    });
    return run;
  }
}

/** Lone UTF-16 surrogates as U+FFFD (String.prototype.toWellFormed, not in our TypeScript lib yet). */
function wellFormed(value: string): string {
  return value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
