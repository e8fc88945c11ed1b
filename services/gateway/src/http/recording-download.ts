/**
 * A meeting's audio recording as a download: `GET /api/v1/meetings/{id}/recording` (API key) and
 * the web player's `/meetings/{id}/recording` (session cookie), one code for both. The bytes are
 * transcript-store's (`routes.recordings.read`), fetched a piece at a time as the client takes
 * them: a Readable whose next bus read waits until the socket has room, so a slow client holds at
 * most a piece or two in memory, never the file.
 *
 * - Ownership first (`ownedMeeting`: someone else's meeting is 404, as an unknown one), then the
 *   recording: none (never recorded, deleted), nothing stored yet, or `failed` (nothing was
 *   stored, and nothing ever will be) is 404 as well, each with its own message. An `incomplete`
 *   file is served as a saved one: what it holds plays; its gaps are in get_recording.
 * - HTTP ranges (RFC 9110 14): one range `bytes=a-b`, `bytes=a-` or `bytes=-n` is a 206 with
 *   `Content-Range`; a range that starts past the end (or `bytes=-0`) is 416, its `Content-Range`
 *   naming the size (`bytes *` then `/size`).
 *   Several ranges, a unit other than bytes, a malformed header or an `If-Range` (we send no
 *   validator it could match) get the whole file (200), as the RFC lets a server answer.
 * - A file still `recording` grows (the bot records, or after the meeting its worker still sends
 *   what it spooled): the answer holds what was stored when the request came (its Content-Length
 *   is that size), with `X-Recording-Status: recording`; a player or a later request with a range
 *   gets what came since. `X-Recording-Status` always names the state.
 * - HEAD answers the same headers without reading a byte.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { call, type Bus } from '@notetaker/bus';
import {
  errors,
  RECORDING_FORMAT,
  RECORDING_MAX_CHUNK_BYTES,
  routes,
  type Caller,
  type RecordingInfo,
} from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { NO_AUDIO_YET, NO_RECORDING, RECORDING_FAILED } from '../operations/recordings.js';
import { ownedMeeting } from '../operations/transcripts.js';

/** The download route, relative to /api/v1 (the web serves the same path at its root). */
export const RECORDING_DOWNLOAD = { method: 'get', path: '/meetings/:meetingId/recording' } as const;

/** One bus read: half of what a read may span, so a reply (base64) stays far below NATS' 1 MB. */
export const RECORDING_PIECE_BYTES = RECORDING_MAX_CHUNK_BYTES / 2;

/** What a Range header asks of a file of `size` bytes; `end` inclusive. */
export type RangeAnswer = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

const WHOLE: RangeAnswer = { kind: 'whole' };

/**
 * The answer to a `Range` header (with `If-Range`, when sent) for a file of `size` bytes (size > 0).
 * Only a single byte range is served as a part; what the server may ignore is the whole file.
 */
export function rangeOf(header: string | undefined, size: number, ifRange?: string): RangeAnswer {
  if (!header || ifRange) return WHOLE;
  const set = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!set) return WHOLE;
  const specs = set[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (specs.length !== 1) return WHOLE;
  const spec = /^(\d*)\s*-\s*(\d*)$/.exec(specs[0]);
  if (!spec || (spec[1] === '' && spec[2] === '')) return WHOLE;
  if (spec[1] === '') {
    const suffix = Number(spec[2]);
    return suffix === 0
      ? { kind: 'unsatisfiable' }
      : { kind: 'part', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(spec[1]);
  const last = spec[2] === '' ? Infinity : Number(spec[2]);
  if (last < start) return WHOLE; // invalid: ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(last, size - 1) };
}

/** Bytes [start, end] of the stored file, as one bus read (at most RECORDING_PIECE_BYTES). */
async function piece(bus: Bus, meetingId: string, start: number, end: number): Promise<Buffer> {
  const { data } = await call(bus, routes.recordings.read, { meetingId, start, end });
  const bytes = Buffer.from(data, 'base64');
  // The file only grows while recorded; shorter than what it said it held means it went away.
  if (bytes.length !== end - start + 1) throw errors.notFound(NO_RECORDING);
  return bytes;
}

/**
 * Bytes [start, end] of a meeting's recording, read from transcript-store a piece at a time, each
 * read only once the consumer wants more (Readable's `read`, under a one-piece high-water mark).
 * `first` is the first piece, already read.
 */
export function recordingStream(bus: Bus, meetingId: string, start: number, end: number, first?: Buffer): Readable {
  let next = start;
  return new Readable({
    highWaterMark: RECORDING_PIECE_BYTES,
    read() {
      if (next > end) {
        this.push(null);
        return;
      }
      const last = Math.min(end, next + RECORDING_PIECE_BYTES - 1);
      const taken = first && next === start ? Promise.resolve(first) : piece(bus, meetingId, next, last);
      taken.then(
        (bytes) => {
          if (this.destroyed) return;
          next = last + 1;
          this.push(bytes);
        },
        (err: unknown) => this.destroy(err as Error),
      );
    },
  });
}

export interface RecordingDownload {
  bus: Bus;
  logger: Logger;
  caller: Caller;
  meetingId: string;
}

/**
 * Answers a download of a meeting's recording on `ctx` (GET or HEAD, with ranges): 200, 206 or 416;
 * throws a ServiceError (404 for not the caller's, no recording, no audio yet, failed) before anything is
 * sent, for the route's own error answer.
 */
export async function sendRecording(
  ctx: Context,
  { bus, logger, caller, meetingId }: RecordingDownload,
): Promise<void> {
  const meeting = await ownedMeeting(bus, caller, meetingId);
  const info: RecordingInfo | null = await call(bus, routes.recordings.get, { meetingId: meeting.meetingId });
  if (!info) throw errors.notFound(NO_RECORDING);
  if (info.status === 'failed') throw errors.notFound(RECORDING_FAILED);
  if (info.bytes === 0) throw errors.notFound(NO_AUDIO_YET);
  const size = info.bytes;
  const range = rangeOf(ctx.get('range') || undefined, size, ctx.get('if-range') || undefined);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Recording-Status', info.status);
  if (range.kind === 'unsatisfiable') {
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${size}`);
    ctx.body = { error: `Range not satisfiable: the recording holds ${size} bytes` };
    return;
  }
  const { start, end } = range.kind === 'part' ? range : { start: 0, end: size - 1 };
  // Read before anything is sent: a recording deleted meanwhile, or a store not answering, is
  // still a proper answer (404, 503), not a cut-off download.
  const first =
    ctx.method === 'HEAD'
      ? undefined
      : await piece(bus, meeting.meetingId, start, Math.min(end, start + RECORDING_PIECE_BYTES - 1));
  ctx.status = range.kind === 'part' ? 206 : 200;
  ctx.type = RECORDING_FORMAT;
  ctx.set('Content-Disposition', `inline; filename="${meeting.meetingId}.ogg"`);
  if (range.kind === 'part') ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  ctx.length = end - start + 1;
  if (ctx.method === 'HEAD') return;

  // Streamed by hand (as the MCP endpoint's event streams): a client going away mid-file is normal
  // for a media player (every seek), not an error for Koa to print.
  ctx.respond = false;
  try {
    await pipeline(recordingStream(bus, meeting.meetingId, start, end, first), ctx.res);
  } catch (err) {
    if (ctx.req.destroyed || (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    logger.warn({ err, meetingId: meeting.meetingId, start, end }, 'recording download cut off');
  }
}

/** The REST route (API key: the caller set by the key middleware). Koa's router serves HEAD with it. */
export function recordingDownloadRoute(router: Router, bus: Bus, logger: Logger): void {
  router.get(RECORDING_DOWNLOAD.path, (ctx) =>
    sendRecording(ctx, { bus, logger, caller: ctx.state.caller as Caller, meetingId: String(ctx.params.meetingId) }),
  );
}
