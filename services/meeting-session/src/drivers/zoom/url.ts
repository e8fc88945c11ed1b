/**
 * Zoom meeting links -> the meeting's id and the web client's join URL. Zoom writes one meeting
 * many ways: the launch page on zoom.us or a company's subdomain (`/j/<id>`), the web client on
 * app.zoom.us (`/wc/join/<id>`, `/wc/<id>/join`), and personal links (`/my/<name>`) whose numeric
 * id is only known to Zoom. The passcode travels in `pwd` (Zoom's encoded form of it), which the
 * web client takes in place of asking.
 */
import type { MeetingLink, MeetingLinks } from '../meeting-link.js';

/** zoom.us, and its subdomains: app., us05web., a company's vanity host. Never a look-alike. */
const ZOOM_HOST = /^([a-z0-9-]{1,63}\.)?zoom\.us$/;

/** Zoom meeting ids are 9 to 11 digits (12 seen on some accounts). */
const MEETING_ID = /^\d{9,12}$/;
/** A personal link's name: Zoom asks for 5-40 letters, digits and periods, starting with a letter. */
const PERSONAL_NAME = /^[a-z][a-z0-9.]{4,39}$/;
const WEB_CLIENT = 'https://app.zoom.us';

export const zoomLinks: MeetingLinks = {
  serves: (host) => ZOOM_HOST.test(host),
  parse: parseZoom,
};

function parseZoom(url: URL): MeetingLink | null {
  const segments = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  if (segments.some((segment) => segment === null)) return null;
  const [, second, third] = segments as string[];
  const pwd = url.searchParams.get('pwd');
  const lower = segments.map((segment) => segment!.toLowerCase());
  if (segments.length === 2 && lower[0] === 'j') return byId(second, pwd);
  if (segments.length === 3 && lower[0] === 'wc' && lower[1] === 'join') return byId(third, pwd);
  if (segments.length === 3 && lower[0] === 'wc' && lower[2] === 'join') return byId(second, pwd);
  if (segments.length === 2 && lower[0] === 'my') {
    const name = second.toLowerCase();
    if (!PERSONAL_NAME.test(name)) return null;
    // Only Zoom knows the id behind the name: its launch page leads on to the web client.
    return { nativeId: name, joinUrl: withPwd(`https://zoom.us/my/${name}`, pwd) };
  }
  return null;
}

function byId(raw: string, pwd: string | null): MeetingLink | null {
  // People paste ids as written in invitations: "123 4567 8901", "123-4567-8901".
  const id = raw.replace(/[\s-]/g, '');
  if (!MEETING_ID.test(id)) return null;
  return { nativeId: id, joinUrl: withPwd(`${WEB_CLIENT}/wc/join/${id}`, pwd) };
}

function withPwd(base: string, pwd: string | null): string {
  const url = new URL(base);
  if (pwd) url.searchParams.set('pwd', pwd);
  return url.toString();
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
