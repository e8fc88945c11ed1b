/**
 * The video API the simulated pages call (call-video.js), on their own origin under /_sim/video/
 * (the media server's cameras: video-page.js):
 *
 *   POST open      {guest, count, width, height} -> {id, sdp, names} (id null: no camera is on)
 *   POST answer    {id, sdp}
 *   POST subscribe {id, count, width, height}    -> {sdp}: a new offer for what the page shows now
 *   POST stats     {id, framesDecoded, framesReceived}: the page's own reading of what it decodes
 *   POST close     {id}
 *
 * The cameras are the meeting's first `cameras` participants in the call when the page opens.
 * videoTruth(meeting) gives what each bot page was sent (the sender's view) and says it decoded.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '../http.js';
import type { SimMeeting } from '../meeting.js';
import type { MeetingRegistry } from '../registry.js';
import type { MediaServer, SenderStats } from './server.js';

/** What the simulator knows of one bot page's video: what it asked for, and what it reported. */
interface SessionState {
  guest: string;
  cameras: string[];
  /** Streams and tile size the page asked for last. */
  subscribed: number;
  width: number;
  height: number;
  /** The page's last report (framesDecoded summed over its video receivers). */
  framesDecoded: number;
  framesReceived: number;
  closed: boolean;
}

interface Session extends SessionState {
  id: string;
  meeting: SimMeeting;
}

export interface VideoSessionTruth extends SessionState {
  sent: SenderStats | null;
}

export class VideoCalls {
  readonly sessions = new Map<string, Session>();
  constructor(readonly sender: MediaServer) {}
}

const byMeeting = new WeakMap<SimMeeting, VideoCalls>();

const size = (value: unknown, fallback: number, max: number) =>
  Math.min(max, Math.max(16, Math.round(Number(value) || fallback)));

export async function handleVideoApi(
  registry: MeetingRegistry,
  video: VideoCalls,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const route = `${req.method} ${url.pathname.slice('/_sim/video/'.length)}`;
  const body = await readJson(req);
  const session = video.sessions.get(String(body.id));
  switch (route) {
    case 'POST open': {
      const guest = String(body.guest);
      const meeting = registry.meetingOfGuest(guest);
      const count = meeting?.options.cameras ?? 0;
      if (!meeting || count <= 0) return sendJson(res, 200, { id: null });
      const cameras = meeting
        .truth()
        .participants.filter((p) => !p.leftAt)
        .slice(0, count)
        .map((p) => p.name);
      if (cameras.length === 0) return sendJson(res, 200, { id: null });
      const fps = Math.min(30, Math.max(15, meeting.options.cameraFps ?? 15));
      const id = randomBytes(6).toString('hex');
      const opened = await video.sender.open(id, cameras, fps);
      const want = Number(body.count ?? cameras.length);
      const width = size(body.width, 320, 1920);
      const height = size(body.height, 180, 1080);
      const s: Session = {
        id,
        guest,
        meeting,
        cameras,
        subscribed: Math.min(want, cameras.length),
        width,
        height,
        framesDecoded: 0,
        framesReceived: 0,
        closed: false,
      };
      video.sessions.set(id, s);
      byMeeting.set(meeting, video);
      // The first offer sends every camera at 320x180; what the page shows takes over at once.
      const sdp = await video.sender.subscribe(id, want, width, height);
      return sendJson(res, 200, { id, sdp: sdp ?? opened.sdp, names: opened.names });
    }
    case 'POST answer':
      if (!session) return sendJson(res, 404, { error: 'no such video session' });
      await video.sender.answer(session.id, String(body.sdp));
      return sendJson(res, 200, {});
    case 'POST subscribe': {
      if (!session) return sendJson(res, 404, { error: 'no such video session' });
      session.subscribed = Math.max(0, Math.min(session.cameras.length, Number(body.count) || 0));
      session.width = size(body.width, 320, 1920);
      session.height = size(body.height, 180, 1080);
      const sdp = await video.sender.subscribe(session.id, session.subscribed, session.width, session.height);
      return sendJson(res, 200, { sdp });
    }
    case 'POST stats':
      if (session) {
        session.framesDecoded = Number(body.framesDecoded) || 0;
        session.framesReceived = Number(body.framesReceived) || 0;
      }
      return sendJson(res, 200, {});
    case 'POST close':
      if (session && !session.closed) {
        session.closed = true;
        await video.sender.closeSession(session.id);
      }
      return sendJson(res, 200, {});
    default:
      return sendJson(res, 404, { error: `no video route ${route}` });
  }
}

/** What each bot page of the meeting was sent and decoded, per video session (the newest last). */
export async function videoTruth(meeting: SimMeeting): Promise<VideoSessionTruth[]> {
  const video = byMeeting.get(meeting);
  if (!video) return [];
  const out: VideoSessionTruth[] = [];
  for (const s of video.sessions.values()) {
    if (s.meeting !== meeting) continue;
    const { id: _id, meeting: _m, ...rest } = s;
    out.push({ ...rest, sent: s.closed ? null : await video.sender.stats(s.id) });
  }
  return out;
}
