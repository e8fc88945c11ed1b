/**
 * Meeting URLs -> (platform, native meeting id). The native id is the meeting's identity: two URLs
 * that reach the same meeting (a different letter case, a query, a Teams wrapper page) must give
 * the same `identityKey`, or a second bot could join a meeting that is already being transcribed.
 *
 * Anything that is not a meeting link of the three platforms is refused rather than guessed at.
 */
import { errors, type Platform } from '@notetaker/contracts';
import { parseZoom, ZOOM_HOST } from './zoom-url.js';

export interface ParsedMeetingUrl {
  platform: Platform;
  /** The platform's own id of the meeting: a Meet code, `<thread>/<message>`, a Teams meet id, a Zoom id or personal link name. */
  nativeId: string;
  /** `<platform>:<nativeId>`: what at most one live meeting may hold. */
  identityKey: string;
  /** A canonical URL the driver opens (wrappers removed, the parts the platform needs kept). */
  joinUrl: string;
}

const UNSUPPORTED =
  'url must be a Google Meet (https://meet.google.com/abc-defg-hij), Zoom (https://zoom.us/j/123456789) or Microsoft Teams meeting link';

const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;
/** Teams "meet" links carry a numeric meeting id (observed 10-15 digits). */
const TEAMS_MEET_ID = /^\d{6,20}$/;
/** A meetup-join thread: `19:meeting_<base64ish>@thread.v2` (also `@thread.skype`, `@thread.tacv2`). */
const TEAMS_THREAD = /^19:[A-Za-z0-9_=+/.-]{1,200}@thread\.[a-z0-9]{1,10}$/;
const TEAMS_MESSAGE = /^\d{1,20}$/;

export function parseMeetingUrl(raw: string): ParsedMeetingUrl {
  const url = toUrl(raw.trim());
  if (!url) throw errors.badRequest(UNSUPPORTED, 'url');
  const host = url.hostname.toLowerCase();
  if (host === 'meet.google.com') return parseMeet(url);
  if (host === 'teams.microsoft.com' || host === 'teams.live.com') return parseTeams(url, host);
  if (ZOOM_HOST.test(host)) return parseZoomUrl(url);
  throw errors.badRequest(UNSUPPORTED, 'url');
}

function toUrl(value: string): URL | null {
  if (value.length === 0 || value.length > 4096) return null;
  // People paste links without a scheme; anything with a scheme must be http(s).
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // Credentials or an explicit port are never part of a real meeting link.
  if (url.username || url.password || url.port) return null;
  return url;
}

function parseMeet(url: URL): ParsedMeetingUrl {
  const segments = url.pathname.split('/').filter(Boolean);
  const code = segments.length === 1 ? segments[0].toLowerCase() : '';
  if (!MEET_CODE.test(code)) throw errors.badRequest(UNSUPPORTED, 'url');
  return result('google_meet', code, `https://meet.google.com/${code}`);
}

function parseTeams(url: URL, host: string): ParsedMeetingUrl {
  const segments = url.pathname.split('/').filter(Boolean);
  // teams.microsoft.com/meet/<id>?p=<passcode> and teams.live.com/meet/<id>?p=<passcode>
  if (segments.length === 2 && segments[0].toLowerCase() === 'meet') {
    const id = segments[1];
    if (!TEAMS_MEET_ID.test(id)) throw errors.badRequest(UNSUPPORTED, 'url');
    const passcode = url.searchParams.get('p');
    const join = new URL(`https://${host}/meet/${id}`);
    if (passcode) join.searchParams.set('p', passcode);
    return result('teams', `meet:${id}`, join.toString());
  }
  if (host !== 'teams.microsoft.com') throw errors.badRequest(UNSUPPORTED, 'url');
  const joinPath = meetupJoinPath(url, segments);
  if (!joinPath) throw errors.badRequest(UNSUPPORTED, 'url');
  return parseMeetupJoin(joinPath);
}

/**
 * Where the `/l/meetup-join/...` part sits: in the path, in the fragment of the `/v2/` and `/_`
 * web-app pages, or URL-encoded in the `url` parameter of the launcher page.
 */
function meetupJoinPath(url: URL, segments: string[]): string | null {
  if (segments[0]?.toLowerCase() === 'l') return url.pathname + url.search;
  const fragment = url.hash.startsWith('#') ? url.hash.slice(1) : '';
  const isWebApp = segments.length === 0 || (segments.length === 1 && ['v2', '_'].includes(segments[0].toLowerCase()));
  if (isWebApp && fragment.toLowerCase().startsWith('/l/')) return fragment;
  if (segments.join('/').toLowerCase() === 'dl/launcher/launcher.html') {
    const inner = url.searchParams.get('url');
    if (!inner) return null;
    // The inner link is relative to the web app: `/_#/l/meetup-join/...`.
    const hashAt = inner.indexOf('#');
    const path = hashAt >= 0 ? inner.slice(hashAt + 1) : inner;
    return path.toLowerCase().startsWith('/l/') ? path : null;
  }
  return null;
}

function parseMeetupJoin(pathAndQuery: string): ParsedMeetingUrl {
  const queryAt = pathAndQuery.indexOf('?');
  const path = queryAt >= 0 ? pathAndQuery.slice(0, queryAt) : pathAndQuery;
  const query = new URLSearchParams(queryAt >= 0 ? pathAndQuery.slice(queryAt + 1) : '');
  const segments = path.split('/').filter(Boolean);
  if (segments.length !== 4 || segments[0].toLowerCase() !== 'l' || segments[1].toLowerCase() !== 'meetup-join') {
    return refuse();
  }
  const thread = decodeFully(segments[2]);
  const message = decodeFully(segments[3]);
  if (thread === null || message === null || !TEAMS_THREAD.test(thread) || !TEAMS_MESSAGE.test(message)) {
    return refuse();
  }
  const join = new URL(`https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(thread)}/${message}`);
  const context = query.get('context');
  // The context (tenant and organizer ids) is what lets an anonymous guest join.
  if (context) join.searchParams.set('context', context);
  return result('teams', `${thread}/${message}`, join.toString());
}

/** Links are found encoded once or twice (`%3a`, `%253a`); decode until stable. */
function decodeFully(value: string): string | null {
  let current = value;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return null;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

function parseZoomUrl(url: URL): ParsedMeetingUrl {
  const zoom = parseZoom(url);
  if (!zoom) return refuse();
  return result('zoom', zoom.nativeId, zoom.joinUrl);
}

function refuse(): never {
  throw errors.badRequest(UNSUPPORTED, 'url');
}

function result(platform: Platform, nativeId: string, joinUrl: string): ParsedMeetingUrl {
  return { platform, nativeId, identityKey: `${platform}:${nativeId}`, joinUrl };
}
