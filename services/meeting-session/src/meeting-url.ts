/**
 * Meeting URLs -> (platform, native meeting id). The native id is the meeting's identity: two URLs
 * that reach the same meeting (a different letter case, a query, a Teams wrapper page) must give
 * the same `identityKey`, or a second bot could join a meeting that is already being transcribed.
 *
 * Anything that is not a meeting link of the three platforms is refused rather than guessed at.
 * Each platform's link forms are in its folder (`drivers/<platform>/url.ts`).
 */
import { errors, type Platform } from '@notetaker/contracts';
import { PLATFORMS, type PlatformModule } from './drivers/platforms.js';

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

export function parseMeetingUrl(raw: string): ParsedMeetingUrl {
  const url = toUrl(raw.trim());
  if (!url) throw errors.badRequest(UNSUPPORTED, 'url');
  const host = url.hostname.toLowerCase();
  for (const [platform, { links }] of Object.entries(PLATFORMS) as Array<[Platform, PlatformModule]>) {
    if (!links.serves(host)) continue;
    const link = links.parse(url);
    if (!link) break;
    return { platform, nativeId: link.nativeId, identityKey: `${platform}:${link.nativeId}`, joinUrl: link.joinUrl };
  }
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
