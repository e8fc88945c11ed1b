/**
 * GET /meetings/:meetingId/events: a meeting's events as server-sent events, for the live view.
 * The bus subscription starts first and buffers; then the meeting's log is replayed from the
 * browser's Last-Event-ID (the sequence), then the buffer, each event once and in sequence order.
 * So a page opened late, or a reconnect after a network blip, misses nothing and repeats nothing.
 * The stream ends after the meeting's final status, or when the session that opened it signs out
 * or expires (identity/grants.ts).
 */
import type { Context, Middleware } from 'koa';
import { eventEnvelope, evtMeeting, noticeMeeting, type EventEnvelope } from '@notetaker/contracts';
import { getEvents } from '../../operations/events.js';
import { ownedMeeting } from '../../operations/transcripts.js';
import { inTime, PAGE_REQUEST_TIMEOUT_MS, read, settle } from '../backend.js';
import { signedIn, uiCaller, type WebDeps } from '../context.js';
import { meetingIdParam } from '../params.js';

const REPLAY_PAGE = 500;
const HEARTBEAT_MS = 15_000;
/** A reader this far behind loses captions in progress (finalized segments are always sent). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

export function liveEvents(deps: WebDeps): Middleware {
  return async (ctx) => {
    const meetingId = meetingIdParam(ctx);
    const found = await settle(
      inTime(ownedMeeting(deps.bus, uiCaller(ctx), meetingId), PAGE_REQUEST_TIMEOUT_MS, 'the meeting'),
    );
    if (!found.ok) {
      ctx.status = found.unavailable ? 503 : found.error.status;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = found.unavailable ? 'The meeting service is unavailable' : found.error.message;
      return;
    }
    const lastEventId = Number(ctx.get('last-event-id') || 0);
    let lastSent = Number.isSafeInteger(lastEventId) && lastEventId > 0 ? lastEventId : 0;

    // The response is written by hand (Koa would treat a client going away as an error).
    const res = ctx.res;
    let closed = false;
    let replaying = true;
    const buffered: EventEnvelope[] = [];
    const write = (chunk: string) => {
      if (!closed) res.write(chunk);
    };
    const send = (event: EventEnvelope) => {
      if (closed || event.sequence <= lastSent) return;
      if (event.type === 'caption_partial' && res.writableLength > MAX_BUFFERED_BYTES) return;
      lastSent = event.sequence;
      write(`id: ${event.sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      if (event.type === 'meeting_status' && ['ended', 'error'].includes(String(event.payload.status))) finish();
    };

    const subscription = deps.bus.subscribe(evtMeeting(meetingId, '*'), (data) => {
      const parsed = eventEnvelope.safeParse(data);
      if (!parsed.success || parsed.data.meetingId !== meetingId) return;
      if (replaying) buffered.push(parsed.data);
      else send(parsed.data);
    });
    // Caption warnings are not events of the stream: sent as they change, without an id.
    const notices = deps.bus.subscribe(noticeMeeting(meetingId, 'warnings'), (data) => {
      const warnings = (data as { warnings?: unknown }).warnings;
      if (Array.isArray(warnings)) write(`event: warnings\ndata: ${JSON.stringify({ warnings })}\n\n`);
    });
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const cleanup = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      deps.liveStreams.delete(endStream);
      unwatch();
      void subscription.unsubscribe();
      void notices.unsubscribe();
    };
    const finish = () => {
      write('event: done\ndata: {}\n\n');
      cleanup();
      res.end();
    };
    const endStream = () => {
      cleanup();
      res.end();
    };
    deps.liveStreams.add(endStream);
    // The stream was let in by this session: it ends when the session signs out, on any gateway.
    const unwatch = deps.grants.watch({ kind: 'web_session', sessionId: signedIn(ctx).session._id }, endStream);
    res.on('close', cleanup);

    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.status = 200;
    ctx.respond = false;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    // Tell the browser to come back after 2 s if the connection drops.
    write('retry: 2000\n\n');

    void (async () => {
      try {
        await replay(ctx, deps, meetingId, lastSent, send, () => closed);
        write('event: replayed\ndata: {}\n\n');
      } catch {
        // The log cannot be read: the view still gets everything from now on.
        write('event: backlog-unavailable\ndata: {}\n\n');
      }
      replaying = false;
      for (const event of buffered.sort((a, b) => a.sequence - b.sequence)) send(event);
      buffered.length = 0;
      // Ended before we connected, and its log could not say so: nothing more will come.
      if (!closed && ['ended', 'error'].includes(found.value.status)) finish();
    })();
  };
}

/** The meeting's log after `after`, read through get_events as REST's catch-up reads it. */
async function replay(
  ctx: Context,
  deps: WebDeps,
  meetingId: string,
  after: number,
  send: (event: EventEnvelope) => void,
  stopped: () => boolean,
): Promise<void> {
  let from = after;
  while (!stopped()) {
    const page = await read(ctx, deps.bus, getEvents, { meetingId, after: from, limit: REPLAY_PAGE });
    for (const event of page.events) send(event);
    // get_events reads on until it has `limit` events or the log has no more: a short page is the end.
    if (page.events.length < REPLAY_PAGE) return;
    from = page.nextAfter;
  }
}
