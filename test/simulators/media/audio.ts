/**
 * The call-audio API the simulated pages call (call-audio.js), on their own origin under
 * /_sim/call-audio/: the media server (audio-page.js) sends the call's sound, the bot page only
 * receives it.
 *
 *   POST open   {guest, slots, mixName, redundant, copyFirst, tracks, change, idle} -> {id}
 *               (id null: the guest is in no call); the server's first offer comes through next
 *   POST next   {id} -> {messages, closed}: what the server has for the page, which it asks for
 *               whenever its event stream (/_sim/api/events) carries a "call-audio" event:
 *               {type: 'offer', sdp} (to answer), {type: 'recreate'} (the page load's change:
 *               re-create the <audio> elements)
 *   POST answer {id, sdp}
 *   POST close  {id}
 *
 * The server plays every utterance of the meeting to the sessions of its audience (the bots in
 * the call when it was said), from its scheduled time; a session opened while one is still to be
 * heard plays it too (late, whole, within the media server's MAX_LATE_MS). The server's reports
 * go to the ground truth as the page's did: plays (recordPlay) and audio events. A session whose
 * page's event stream closed (the page is gone) is closed, as a media server drops a client gone.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '../http.js';
import type { SimMeeting } from '../meeting.js';
import type { MeetingRegistry } from '../registry.js';
import { readSpeech, speechIdOf } from '../speech.js';
import type { AudioEvent, Utterance } from '../types.js';
import type { AudioMessage, AudioSessionConfig, MediaServer } from './server.js';

type PageMessage = { type: 'offer'; sdp: string } | { type: 'recreate' };

interface AudioSession {
  id: string;
  guest: string;
  meeting: SimMeeting;
  /** What the server has for the page, until the page asks (next). */
  queue: PageMessage[];
  closed: boolean;
  stop: () => void;
}

export class AudioCalls {
  readonly sessions = new Map<string, AudioSession>();

  constructor(
    readonly server: MediaServer,
    readonly registry: MeetingRegistry,
  ) {
    server.onAudio = (message) => this.reported(message);
  }

  private reported(message: AudioMessage): void {
    const s = this.sessions.get(message.session);
    if (!s || s.closed) return;
    switch (message.type) {
      case 'offer':
        return this.deliver(s, { type: 'offer', sdp: message.sdp });
      case 'recreate':
        return this.deliver(s, { type: 'recreate' });
      case 'event':
        return s.meeting.recordAudioEvent(s.guest, message.event as AudioEvent['event'], message.at, message.detail);
      case 'played':
        return s.meeting.recordPlay(s.guest, message.id, {
          startedAt: message.startedAt,
          lateMs: message.lateMs,
          slot: message.slot,
          mid: message.mid,
        });
    }
  }

  /** Held for the page, which the event stream tells to ask. */
  private deliver(s: AudioSession, message: PageMessage): void {
    s.queue.push(message);
    this.registry.poke(s.guest, 'call-audio');
  }

  async open(guest: string, meeting: SimMeeting, config: AudioSessionConfig): Promise<string> {
    const id = randomBytes(6).toString('hex');
    const s: AudioSession = { id, guest, meeting, queue: [], closed: false, stop: () => {} };
    this.sessions.set(id, s);
    await this.server.openAudio(id, config);
    const play = (u: Utterance) => {
      if (s.closed || !u.audience.includes(guest)) return;
      const speech = speechIdOf(u.audioUrl);
      if (!speech) return;
      this.server
        .playAudio(id, { id: u.id, speaker: u.speaker, startAt: u.startedAt, speech }, () => readSpeech(speech))
        .catch((err: Error) => {
          if (!s.closed) meeting.recordAudioEvent(guest, 'failed', Date.now(), `${u.id}: ${err.message}`);
        });
    };
    const unheard = meeting.onUtterance(play);
    // A page gone (its event stream closed) is a client the media server drops.
    const unwatched = this.registry.whenGone(guest, () => void this.close(s));
    s.stop = () => {
      unheard();
      unwatched();
    };
    if (!s.closed) meeting.speechFor(guest).forEach(play);
    return id;
  }

  /** What the server has for the page now (the page asks when its event stream says so). */
  next(s: AudioSession): { messages: PageMessage[]; closed: boolean } {
    return { messages: s.queue.splice(0), closed: s.closed };
  }

  async close(s: AudioSession): Promise<void> {
    if (s.closed) return;
    s.closed = true;
    s.stop();
    this.sessions.delete(s.id);
    await this.server.closeAudio(s.id);
  }

  /** The simulator closes: every session ends (the media server closes after). */
  closeAll(): void {
    for (const s of this.sessions.values()) {
      s.closed = true;
      s.stop();
    }
    this.sessions.clear();
  }
}

const flag = (value: unknown) => value === true;

export async function handleAudioApi(
  registry: MeetingRegistry,
  audio: AudioCalls,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const route = `${req.method} ${url.pathname.slice('/_sim/call-audio/'.length)}`;
  const body = await readJson(req);
  const session = audio.sessions.get(String(body.id));
  switch (route) {
    case 'POST open': {
      const guest = String(body.guest);
      const meeting = registry.meetingOfGuest(guest);
      if (!meeting) return sendJson(res, 200, { id: null });
      const config: AudioSessionConfig = {
        slots: Math.min(8, Math.max(1, Math.round(Number(body.slots) || 1))),
        mixName: typeof body.mixName === 'string' && body.mixName ? body.mixName : null,
        redundant: flag(body.redundant),
        copyFirst: flag(body.copyFirst),
        tracks: body.tracks === 'late' ? 'late' : 'atJoin',
        change: (['replaceTrack', 'renegotiate', 'recreateElement'] as const).find((c) => c === body.change) ?? 'none',
        idle: body.idle === 'paused' ? 'paused' : 'silence',
      };
      return sendJson(res, 200, { id: await audio.open(guest, meeting, config) });
    }
    case 'POST next':
      if (!session) return sendJson(res, 200, { messages: [], closed: true });
      return sendJson(res, 200, audio.next(session));
    case 'POST answer':
      if (!session) return sendJson(res, 404, { error: 'no such audio session' });
      await audio.server.answerAudio(session.id, String(body.sdp));
      return sendJson(res, 200, {});
    case 'POST close':
      if (session) await audio.close(session);
      return sendJson(res, 200, {});
    default:
      return sendJson(res, 404, { error: `no call-audio route ${route}` });
  }
}
