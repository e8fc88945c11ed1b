/**
 * The simulator's HTTPS server. Chromium reaches it under the platforms' real host names through
 * --host-resolver-rules, so requests are told apart by their Host header.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simulatorCertificate } from './certificate.js';
import { handleControlApi } from './control-api.js';
import { handleChatApi } from './chat.js';
import { handleGuestApi, presented } from './guest-api.js';
import { redirect, sendHtml, sendJson } from './http.js';
import { pageSeed } from './markup.js';
import { recordPageLoad } from './page-load.js';
import { meetPage } from './pages/meet.js';
import { teamsPage } from './pages/teams.js';
import type { MeetingRegistry } from './registry.js';
import { serveAudio } from './speech.js';
import { pageOptions } from './types.js';
import { isZoomHost, zoomRoute } from './zoom-routes.js';
import { closeMedia, handleMediaApi } from './media/routes.js';

const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;
const NO_MEETING = { meetingId: '', code: '', space: '', hl: null, options: {}, account: null };

export async function startServer(registry: MeetingRegistry): Promise<{ port: number; close(): Promise<void> }> {
  const server = https.createServer(await simulatorCertificate(), (req, res) => {
    route(registry, req, res).catch((error: Error) => {
      if (!res.headersSent) sendJson(res, 500, { error: error.message });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      registry.closeStreams();
      await closeMedia(registry);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function route(registry: MeetingRegistry, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  const url = new URL(req.url ?? '/', `https://${host || 'localhost'}`);
  if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
  if (url.pathname.startsWith('/_sim/api/chat')) return handleChatApi(registry, req, res, url);
  if (url.pathname.startsWith('/_sim/api/')) return handleGuestApi(registry, req, res, url);
  // Speech the pages play into their call (speech.ts), on whichever platform's origin asks.
  if (url.pathname.startsWith('/_sim/audio/') && (await serveAudio(url.pathname, res))) return;
  if (await handleMediaApi(registry, req, res, url)) return;
  switch (host) {
    case 'meet.google.com':
      return meetRoute(registry, req, res, url);
    case 'teams.microsoft.com':
    case 'teams.live.com':
      return teamsRoute(registry, req, res, url);
    case 'login.microsoftonline.com':
      return sendHtml(res, teamsPage({ page: 'login', seed: pageSeed(null) }));
    case 'accounts.google.com':
      return sendHtml(res, meetPage({ ...NO_MEETING, seed: pageSeed(null), screen: 'sign_in' }));
    case '127.0.0.1':
    case 'localhost':
      if (url.pathname.startsWith('/_sim/control/')) return handleControlApi(registry, req, res, url);
  }
  if (isZoomHost(host)) return zoomRoute(registry, req, res, url);
  sendJson(res, 404, { error: `nothing simulated at ${host}${url.pathname}` });
}

function meetRoute(registry: MeetingRegistry, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const code = url.pathname.slice(1);
  const hl = url.searchParams.get('hl');
  if (!MEET_CODE.test(code)) {
    return sendHtml(res, meetPage({ ...NO_MEETING, code, hl, seed: pageSeed(null), screen: 'invalid' }));
  }
  const meeting = registry.meeting(code);
  const session = registry.accounts.check('google_meet', presented(req, null));
  const { guests } = meeting.options;
  if (session.stale || (!session.valid && guests === 'refused_sign_in')) {
    // Meet sends a browser whose session it does not accept, or a guest it will not take, to sign in.
    const signIn = new URL('https://accounts.google.com/v3/signin/identifier');
    signIn.searchParams.set('continue', url.toString());
    signIn.searchParams.set('flowName', 'GlifWebSignIn');
    return redirect(res, signIn);
  }
  const seed = pageSeed(meeting.options.markupSeed);
  recordPageLoad(meeting, req, session, { platform: 'google_meet', path: url.pathname, hl, markupSeed: seed });
  const refused = !session.valid && guests === 'refused_screen';
  const screen = meeting.options.notFound ? 'not_found' : refused ? 'cannot_join' : null;
  const account = session.valid && { name: session.valid.name, email: session.valid.email };
  const options = pageOptions('google_meet', meeting.options);
  sendHtml(res, meetPage({ seed, meetingId: code, code, space: meeting.space, hl, options, screen, account }));
}

function teamsRoute(registry: MeetingRegistry, _req: IncomingMessage, res: ServerResponse, url: URL): void {
  const launch = url.pathname.match(/^\/l\/meetup-join\/([^/]+)/) ?? url.pathname.match(/^\/meet\/(\d+)/);
  if (launch) {
    const meeting = registry.meeting(decodeURIComponent(launch[1]));
    const seed = pageSeed(meeting.options.markupSeed);
    return sendHtml(res, teamsPage({ page: 'launcher', seed }));
  }
  if (url.pathname === '/v2/' || url.pathname === '/v2' || url.pathname === '/light-meetings/launch') {
    // The app learns its meeting from the URL's fragment (light meetings: its coords), which the
    // server never reads; the launcher passes its seed along so the app is built from the same draw.
    const handed = url.searchParams.get('simSeed');
    const seed = handed && /^\d+$/.test(handed) ? Number(handed) >>> 0 : pageSeed(null);
    return sendHtml(res, teamsPage({ page: 'app', seed }));
  }
  sendJson(res, 404, { error: `no Teams page at ${url.pathname}` });
}
