/**
 * Zoom's hosts in the simulator (zoom.us, app.zoom.us, usNNweb.zoom.us, a company's subdomain):
 * the launch page, the web client, the sign-in page, and the web client's own calls to ask to
 * join (the passcode and whether the host started the meeting are checked here, as Zoom's servers
 * do). Once a bot is in, the shared guest API (/_sim/api/) serves its event stream, captions and
 * leave, as for the other platforms.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { presented } from './guest-api.js';
import { readJson, redirect, sendHtml, sendJson } from './http.js';
import { pageSeed } from './markup.js';
import { recordPageLoad } from './page-load.js';
import { zoomPage, zoomPages, zoomScriptRedirect, zoomShell } from './pages/zoom.js';
import type { MeetingRegistry } from './registry.js';
import type { SimMeeting } from './meeting.js';
import { pageOptions, type ZoomPrejoinAnswers } from './types.js';
import { warmMedia } from './media/routes.js';

/** zoom.us and every subdomain of it: what the simulator answers for Zoom. */
export const ZOOM_HOSTS = ['zoom.us', '*.zoom.us'] as const;

/** Where Zoom's web client is, and the other host it may send a browser on to (a regional one). */
export const ZOOM_WEB_CLIENT_HOST = 'app.zoom.us';
export const ZOOM_OTHER_HOST = 'us06web.zoom.us';

export const isZoomHost = (host: string): boolean => host === 'zoom.us' || host.endsWith('.zoom.us');

/**
 * The `pwd` a Zoom invitation carries for a passcode: Zoom's is an encoded form, never the
 * passcode itself; the simulator's is a reversible stand-in with the same look.
 */
export function zoomPwd(passcode: string): string {
  return `${Buffer.from(passcode, 'utf8').toString('base64url')}.1`;
}

/**
 * Every form of link Zoom hands out, each to one of `ids` (four meeting numbers) and the last to
 * the personal room `personal`, all with the passcode's pwd: the launch page on a regional host
 * and on zoom.us, the web client's two paths, and a personal link.
 */
export function zoomLinkForms(ids: readonly string[], personal: string, passcode: string): string[] {
  const pwd = zoomPwd(passcode);
  return [
    `https://us05web.zoom.us/j/${ids[0]}?pwd=${pwd}`,
    `https://zoom.us/j/${ids[1]}?pwd=${pwd}`,
    `https://app.zoom.us/wc/join/${ids[2]}?pwd=${pwd}`,
    `https://app.zoom.us/wc/${ids[3]}/join?pwd=${pwd}`,
    `https://zoom.us/my/${personal}?pwd=${pwd}`,
  ];
}

/** The invitation link for a simulated Zoom meeting: the launch page, with the pwd when it has a passcode. */
export function zoomInvitation(meeting: SimMeeting, host = 'us05web.zoom.us'): string {
  const url = new URL(`https://${host}/j/${meeting.id}`);
  if (meeting.options.passcode) url.searchParams.set('pwd', zoomPwd(meeting.options.passcode));
  return url.toString();
}

export async function zoomRoute(
  registry: MeetingRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const path = url.pathname;
  if (path.startsWith('/_sim/zoom/')) return zoomApi(registry, req, res, url);
  const launch = path.match(/^\/j\/(\d+)\/?$/) ?? path.match(/^\/my\/([A-Za-z][A-Za-z0-9.]+)\/?$/);
  if (launch) {
    const meetingId = launch[1].toLowerCase();
    const seed = pageSeed(registry.meeting(meetingId).options.markupSeed);
    const pwd = url.searchParams.get('pwd');
    // Some launch pages send the browser straight on to the web client on app.zoom.us.
    const webClient = new URL(`https://${ZOOM_WEB_CLIENT_HOST}/wc/join/${encodeURIComponent(meetingId)}`);
    if (pwd) webClient.searchParams.set('pwd', pwd);
    const { redirect: sendOn } = zoomPages.choicesOf(seed);
    if (sendOn === 'http') return redirect(res, webClient);
    if (sendOn === 'script') return sendHtml(res, zoomScriptRedirect(webClient.toString()));
    return sendHtml(res, zoomPage({ page: 'launch', seed, meetingId, pwd }));
  }
  if (path === '/signin' || path === '/signin/')
    return sendHtml(res, zoomPage({ page: 'signin', seed: pageSeed(null) }));
  const client = path.match(/^\/wc\/join\/([^/]+)\/?$/) ?? path.match(/^\/wc\/([^/]+)\/join\/?$/);
  if (client) return webClient(registry, req, res, url, decodeURIComponent(client[1]).toLowerCase());
  sendJson(res, 404, { error: `no Zoom page at ${path}` });
}

function webClient(registry: MeetingRegistry, req: IncomingMessage, res: ServerResponse, url: URL, id: string): void {
  const meeting = registry.meeting(id);
  const session = registry.accounts.check('zoom', presented(req, null));
  const { guests, notFound, botWall, passcode } = meeting.options;
  if (session.stale || (!session.valid && guests === 'refused_sign_in')) {
    // Zoom sends a guest of a meeting for signed-in users, or a session it no longer accepts, to sign in.
    const signIn = new URL('https://zoom.us/signin');
    signIn.hash = `#/login?continue=${encodeURIComponent(url.toString())}`;
    return redirect(res, signIn);
  }
  const seed = pageSeed(meeting.options.markupSeed);
  const drawn = zoomPages.choicesOf(seed);
  const top = req.headers['sec-fetch-dest'] !== 'iframe';
  if (top && url.hostname === ZOOM_WEB_CLIENT_HOST && drawn.redirect !== 'none')
    return sendOn(res, url, drawn.redirect);
  const fromPwa = url.searchParams.get('fromPWA') === '1';
  if (top && (fromPwa || drawn.clientFrame === 'iframe')) {
    // The client in iframe#webclient: first to /wc/<id>/join?fromPWA=1, whose page holds the iframe.
    const shell = new URL(`/wc/${encodeURIComponent(id)}/join`, url);
    shell.search = url.search;
    shell.searchParams.set('fromPWA', '1');
    return fromPwa ? sendHtml(res, zoomShell(seed, shell.pathname + shell.search)) : redirect(res, shell);
  }
  const load = { platform: 'zoom' as const, path: url.pathname, host: url.hostname, hl: null, markupSeed: seed };
  recordPageLoad(meeting, req, session, load);
  const pwd = url.searchParams.get('pwd');
  const refused = !session.valid && guests === 'refused_screen';
  const screen = notFound ? 'invalid' : botWall ? 'captcha' : refused ? 'refused' : null;
  const account = session.valid ? { name: session.valid.name, email: session.valid.email } : null;
  const askPasscode = !!passcode && pwd !== zoomPwd(passcode);
  const { captionsAvailable, visibleRows, interstitial, captionLanguages, captionLanguageSettings } = pageOptions(
    'zoom',
    meeting.options,
  );
  const options = { captionsAvailable, visibleRows, interstitial, captionLanguages, captionLanguageSettings };
  // zoom.us itself serves the classic client (Zoom sends some meetings' guests there).
  const classic = url.hostname === 'zoom.us';
  sendHtml(res, zoomPage({ page: 'client', seed, meetingId: id, pwd, screen, askPasscode, account, options, classic }));
}

/**
 * The web client on app.zoom.us sending the browser on (the page load's `redirect`): to another
 * host's web client by HTTP 302 or by a script, or to the classic client on zoom.us. Those hosts
 * never send it on again.
 */
function sendOn(res: ServerResponse, url: URL, how: 'http' | 'script' | 'classic'): void {
  const target = new URL(url);
  target.hostname = how === 'classic' ? 'zoom.us' : ZOOM_OTHER_HOST;
  if (how === 'classic') target.pathname = target.pathname.replace(/^\/wc\/([^/]+)\/join\/?$/, '/wc/join/$1');
  if (how === 'script') return sendHtml(res, zoomScriptRedirect(target.toString()));
  redirect(res, target);
}

/**
 * The web client's calls: `status` (has the host started the meeting?) and `join` (the passcode
 * checked, then the waiting screen for a meeting not started, else a guest of the meeting).
 */
async function zoomApi(registry: MeetingRegistry, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const route = `${req.method} ${url.pathname.slice('/_sim/zoom/'.length)}`;
  if (route === 'GET status') {
    const meeting = registry.meeting(url.searchParams.get('id') ?? '');
    return sendJson(res, 200, { started: meeting.options.started, ended: meeting.truth().endedAt !== null });
  }
  if (route !== 'POST join') return sendJson(res, 404, { error: `no Zoom route ${route}` });
  const body = await readJson(req);
  const meeting = registry.meeting(String(body.meetingId));
  await meeting.joinAnswered();
  const account = registry.accounts.check('zoom', presented(req, null)).valid;
  if (!account && meeting.options.guests !== 'allowed') return sendJson(res, 403, { error: 'guests are refused' });
  const { passcode } = meeting.options;
  if (passcode && body.pwd !== zoomPwd(passcode) && body.passcode !== passcode) {
    return sendJson(res, 200, { refused: 'passcode' });
  }
  if (!meeting.options.started) return sendJson(res, 200, { waiting: 'host' });
  const bot = meeting.addBot({
    account: account?.email ?? null,
    name: account?.name ?? String(body.name),
    platform: 'zoom',
    micOn: Boolean(body.micOn),
    camOn: Boolean(body.camOn),
    hl: null,
    prejoin: body.prejoin as ZoomPrejoinAnswers,
  });
  registry.indexGuest(bot.guestId, meeting);
  warmMedia(registry);
  return sendJson(res, 200, { guestId: bot.guestId });
}
