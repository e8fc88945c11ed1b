/**
 * The API the simulated pages call on their own origin: ask to join, the event stream (server-sent
 * events carrying the whole view on every change, and the media server's "call-audio" pokes),
 * captions on/off, the leave button, and what the page's side of the call audio did (ICE
 * connected, its <audio> elements re-created or blocked...; what the media server sends and
 * plays it reports itself, media/audio.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cookieValues } from './accounts.js';
import { readJson, sendJson } from './http.js';
import { recordPageLoad } from './page-load.js';
import type { SimMeeting } from './meeting.js';
import type { MeetingRegistry } from './registry.js';
import { pageOptions, type AudioEvent, type SimPlatform } from './types.js';
import { handleMicrophoneApi } from './microphone.js';
import { warmMedia } from './media/routes.js';

export async function handleGuestApi(
  registry: MeetingRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const route = `${req.method} ${url.pathname.slice('/_sim/api/'.length)}`;
  if (await handleMicrophoneApi((guest) => registry.meetingOfGuest(guest), route, req, res)) return;
  switch (route) {
    case 'GET meeting': {
      // The Teams app asks with its localStorage token; its cookies come along by themselves.
      const meeting = registry.meeting(url.searchParams.get('id') ?? '');
      const session = registry.accounts.check('teams', presented(req, url.searchParams.get('token')));
      recordPageLoad(meeting, req, session, {
        platform: (url.searchParams.get('platform') as SimPlatform) ?? 'teams',
        path: url.pathname,
        hl: null,
        markupSeed: Number(url.searchParams.get('seed')) >>> 0,
      });
      return sendJson(res, 200, {
        exists: !meeting.options.notFound,
        options: pageOptions('teams', meeting.options),
        account: session.valid && { name: session.valid.name, email: session.valid.email },
        signIn: session.stale ? 'expired' : session.valid ? 'signed_in' : 'guest',
      });
    }
    case 'GET light-launch': {
      // A light-meetings page drawn lightRedirect 'once': the meeting's first is sent on to lightExperience=false.
      const meeting = registry.meeting(url.searchParams.get('id') ?? '');
      const launches = (lightLaunches.get(meeting) ?? 0) + 1;
      lightLaunches.set(meeting, launches);
      return sendJson(res, 200, { disable: launches === 1 });
    }
    case 'GET interstitial': {
      // The unknown interstitial asks whether it is still up (MeetingOptions.interstitial).
      const meeting = registry.meeting(url.searchParams.get('id') ?? '');
      return sendJson(res, 200, { shown: meeting.options.interstitial });
    }
    case 'POST join': {
      const body = await readJson(req);
      const meeting = registry.meeting(String(body.meetingId));
      await meeting.joinAnswered();
      const platform = body.platform === 'teams' ? 'teams' : 'google_meet';
      const token = typeof body.token === 'string' ? body.token : null;
      const account = registry.accounts.check(platform, presented(req, token)).valid;
      if (!account && meeting.options.guests !== 'allowed') return sendJson(res, 403, { error: 'guests are refused' });
      const bot = meeting.addBot({
        account: account?.email ?? null,
        // A signed-in participant is shown by the account's name, whatever the page sent.
        name: account?.name ?? String(body.name),
        platform,
        micOn: Boolean(body.micOn),
        camOn: Boolean(body.camOn),
        hl: typeof body.hl === 'string' ? body.hl : null,
      });
      registry.indexGuest(bot.guestId, meeting);
      warmMedia(registry);
      return sendJson(res, 200, { guestId: bot.guestId });
    }
    case 'GET events': {
      const guestId = url.searchParams.get('guest') ?? '';
      const meeting = registry.meetingOfGuest(guestId);
      if (!meeting) return sendJson(res, 404, { error: 'unknown guest' });
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      // A page that reconnects after a drop must not be taken for a new one; it is the same guest.
      res.write('retry: 3600000\n\n');
      meeting.attach(guestId, (view) => res.write(`data: ${JSON.stringify(view)}\n\n`));
      const closed = registry.openChannel(guestId, (event) => res.write(`event: ${event}\ndata: {}\n\n`));
      registry.trackStream(res);
      req.on('close', () => {
        meeting.detach(guestId);
        closed();
      });
      return;
    }
    case 'POST captions': {
      const body = await readJson(req);
      registry.meetingOfGuest(String(body.guest))?.setCaptions(String(body.guest), Boolean(body.on));
      return sendJson(res, 200, {});
    }
    case 'POST caption-language': {
      const body = await readJson(req);
      registry.meetingOfGuest(String(body.guest))?.setCaptionLanguage(String(body.guest), String(body.language));
      return sendJson(res, 200, {});
    }
    case 'POST audio-event': {
      const body = await readJson(req);
      const event = String(body.event) as AudioEvent['event'];
      const detail = typeof body.detail === 'string' ? body.detail : undefined;
      registry.meetingOfGuest(String(body.guest))?.recordAudioEvent(String(body.guest), event, Number(body.at), detail);
      return sendJson(res, 200, {});
    }
    case 'POST leave': {
      const body = await readJson(req);
      registry.meetingOfGuest(String(body.guest))?.leaveByButton(String(body.guest));
      return sendJson(res, 200, {});
    }
    default:
      return sendJson(res, 404, { error: `no guest route ${route}` });
  }
}

const lightLaunches = new WeakMap<SimMeeting, number>();

/** How many light-meetings pages drawn lightRedirect 'once' asked whether to go on (the first was sent to the full app). */
export function lightLaunchesOf(meeting: SimMeeting): number {
  return lightLaunches.get(meeting) ?? 0;
}

/** The session values a request carries: its cookies, and a token the page read from localStorage. */
export function presented(req: IncomingMessage, token: string | null): string[] {
  return [...cookieValues(req.headers.cookie).values(), ...(token ? [token] : [])];
}
