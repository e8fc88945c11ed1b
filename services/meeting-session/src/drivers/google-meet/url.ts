/**
 * Google Meet links: `meet.google.com/abc-defg-hij`, the code in any letter case, a query or
 * fragment ignored (the code alone is the meeting).
 */
import type { MeetingLinks } from '../meeting-link.js';

const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;

export const googleMeetLinks: MeetingLinks = {
  serves: (host) => host === 'meet.google.com',
  parse(url) {
    const segments = url.pathname.split('/').filter(Boolean);
    const code = segments.length === 1 ? segments[0].toLowerCase() : '';
    if (!MEET_CODE.test(code)) return null;
    return { nativeId: code, joinUrl: `https://meet.google.com/${code}` };
  },
};
