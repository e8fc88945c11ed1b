/**
 * Microsoft Teams links: `teams.microsoft.com/l/meetup-join/<thread>/<message>` (in the path, in
 * the fragment of the `/v2/` and `/_` web-app pages, or URL-encoded in the launcher page's `url`),
 * and the `meet/<id>?p=<passcode>` links of teams.microsoft.com and teams.live.com. The native id
 * is the thread and message, or `meet:<id>`: one meeting however its link is wrapped.
 */
import type { MeetingLink, MeetingLinks } from '../meeting-link.js';

/** Teams "meet" links carry a numeric meeting id (observed 10-15 digits). */
const TEAMS_MEET_ID = /^\d{6,20}$/;
/** A meetup-join thread: `19:meeting_<base64ish>@thread.v2` (also `@thread.skype`, `@thread.tacv2`). */
const TEAMS_THREAD = /^19:[A-Za-z0-9_=+/.-]{1,200}@thread\.[a-z0-9]{1,10}$/;
const TEAMS_MESSAGE = /^\d{1,20}$/;

export const teamsLinks: MeetingLinks = {
  serves: (host) => host === 'teams.microsoft.com' || host === 'teams.live.com',
  parse(url) {
    const host = url.hostname.toLowerCase();
    const segments = url.pathname.split('/').filter(Boolean);
    // teams.microsoft.com/meet/<id>?p=<passcode> and teams.live.com/meet/<id>?p=<passcode>
    if (segments.length === 2 && segments[0].toLowerCase() === 'meet') {
      const id = segments[1];
      if (!TEAMS_MEET_ID.test(id)) return null;
      const passcode = url.searchParams.get('p');
      const join = new URL(`https://${host}/meet/${id}`);
      if (passcode) join.searchParams.set('p', passcode);
      return { nativeId: `meet:${id}`, joinUrl: join.toString() };
    }
    if (host !== 'teams.microsoft.com') return null;
    const joinPath = meetupJoinPath(url, segments);
    return joinPath ? parseMeetupJoin(joinPath) : null;
  },
};

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

function parseMeetupJoin(pathAndQuery: string): MeetingLink | null {
  const queryAt = pathAndQuery.indexOf('?');
  const path = queryAt >= 0 ? pathAndQuery.slice(0, queryAt) : pathAndQuery;
  const query = new URLSearchParams(queryAt >= 0 ? pathAndQuery.slice(queryAt + 1) : '');
  const segments = path.split('/').filter(Boolean);
  if (segments.length !== 4 || segments[0].toLowerCase() !== 'l' || segments[1].toLowerCase() !== 'meetup-join') {
    return null;
  }
  const thread = decodeFully(segments[2]);
  const message = decodeFully(segments[3]);
  if (thread === null || message === null || !TEAMS_THREAD.test(thread) || !TEAMS_MESSAGE.test(message)) return null;
  const join = new URL(`https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(thread)}/${message}`);
  const context = query.get('context');
  // The context (tenant and organizer ids) is what lets an anonymous guest join.
  if (context) join.searchParams.set('context', context);
  return { nativeId: `${thread}/${message}`, joinUrl: join.toString() };
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
