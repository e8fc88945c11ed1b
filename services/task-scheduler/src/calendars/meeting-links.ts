/**
 * Where a calendar event's meeting is: the first Meet, Teams or Zoom link among the places its
 * provider puts one (the caller passes them best first: Google's conference entry points and
 * hangoutLink, Graph's onlineMeeting.joinUrl, ICS X-GOOGLE-CONFERENCE / X-MICROSOFT-SKYPETEAMSMEETINGURL
 * / URL, then any location or description text). Which meeting a link is, exactly, is
 * meeting-session's to decide when the bot starts (its claim keeps one bot per meeting); here a
 * link only has to be found, told apart by platform, and a Zoom passcode written beside it kept.
 */
import type { Platform } from '@notetaker/contracts';

export interface MeetingLink {
  url: string;
  platform: Platform;
  /** A Zoom passcode given beside a link that carries none. */
  passcode: string | null;
}

const URL_IN_TEXT = /https?:\/\/[^\s"'<>()\[\]{}\\]+/gi;
const ZOOM_HOST = /^([a-z0-9-]+\.)*zoom\.us$/;
const PASSCODE = /\b(?:passcode|password|kenncode|code secret|pwd)\s*[:=]\s*([A-Za-z0-9.@*_-]{1,32})/i;

function platformOf(url: URL): Platform | null {
  const host = url.hostname.toLowerCase();
  const path = url.pathname;
  if (host === 'meet.google.com' && /^\/[a-z]{3}-[a-z]{4}-[a-z]{3}\/?$/i.test(path)) return 'google_meet';
  if ((host === 'teams.microsoft.com' || host === 'teams.live.com') && /^\/(l\/meetup-join\/|meet\/)/i.test(path))
    return 'teams';
  if (ZOOM_HOST.test(host) && /^\/(j|w|my|s)\/[^/]+/i.test(path)) return 'zoom';
  return null;
}

/** HTML bodies (Graph, Google descriptions) carry links with their ampersands escaped. */
function unescapeHtml(text: string): string {
  return text
    .replace(/&amp;/gi, '&')
    .replace(/&#x3D;|&#61;/gi, '=')
    .replace(/&quot;/gi, '"');
}

/** The first meeting link of the texts, in the order given; null when none holds one. */
export function findMeetingLink(texts: ReadonlyArray<string | null | undefined>): MeetingLink | null {
  for (const raw of texts) {
    if (!raw) continue;
    const text = unescapeHtml(raw);
    for (const [candidate] of text.matchAll(URL_IN_TEXT)) {
      let url: URL;
      try {
        // Text around a link often ends it with punctuation that is no part of it.
        url = new URL(candidate.replace(/[.,;:!?]+$/, ''));
      } catch {
        continue;
      }
      const platform = platformOf(url);
      if (!platform) continue;
      const passcode =
        platform === 'zoom' && !url.searchParams.has('pwd') ? (texts.join('\n').match(PASSCODE)?.[1] ?? null) : null;
      return { url: url.toString(), platform, passcode };
    }
  }
  return null;
}
