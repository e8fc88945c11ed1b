/**
 * Join screens told by what they are, on every platform: what the platform's own selectors do not
 * name by an exact sentence (platforms word their screens differently by build, locale and
 * tenant). Read only before the bot is in the call, and only on a page with no name field and no
 * join button (a page that keeps those is a pre-join, whatever else it says):
 * - a control that signs in is a refusal of guests (the page offers no other way in);
 * - otherwise the screen's words by their meaning, most specific first: not found, removed,
 *   ended, guests refused, the lobby.
 * Texts are matched after normalisation (ASCII apostrophes, collapsed whitespace), as elsewhere.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';

export const joinScreens = {
  css: {
    /** What may sign in: buttons and links. */
    controls: 'button, [role="button"], a[href], [role="link"]',
    headings: 'h1, h2, h3, [role="heading"]',
  },
  text: {
    /** "Sign in", "Sign in to join", "Log in", "Sign in with Google": a way in for accounts only. */
    signIn: /^(sign[ -]?in|log[ -]?in)( to (join|continue)( the meeting)?| with .{1,40})?$/i,
    lobby:
      /\b(let|admit) you in\b|\bwaiting room\b|\bwaiting to be (admitted|let in)\b|\byou're in the lobby\b|\b(host|organizer) (knows|has been told) you're (here|waiting)\b/i,
  },
  /**
   * Longer pages are not judged by their words: a call whose own signs failed for one reading has
   * captions in its text, and a caption may say anything.
   */
  maxTextLength: 1000,
  meanings: [
    [
      'meeting_not_found',
      /\b(meeting|call|link|code|meeting id)( link| code| id)? (is|was) (invalid|not valid|incorrect|wrong)\b|\b(couldn't|could not|can't|cannot|unable to) find (this|the|that|your) (meeting|call)\b|\b(meeting|call) (doesn't|does not|no longer) exists?\b|\binvalid (meeting|call|link)\b/i,
    ],
    // Before ended: "removed you from the call" says why this bot's meeting is over, for it alone.
    [
      'removed',
      /\b(someone|the (host|organizer)|host|organizer) (has )?removed you\b|\byou('ve| have)? been removed from\b|\byou were removed from\b/i,
    ],
    [
      'meeting_ended',
      /\b(meeting|call) (has )?(ended|finished|is over)\b|\b(host|organizer) (has )?ended (the|this) (meeting|call)\b/i,
    ],
    [
      'guest_refused',
      /\b(anonymous(ly)?|unauthenticated|guests?)\b.{0,40}\b(can't|cannot|not allowed|aren't allowed|not permitted|blocked)\b|\b(can't|cannot|not allowed to|aren't allowed to|unable to|not permitted to) join\b|\bonly (signed[- ]in|authenticated|authori[sz]ed|invited|verified) (users|people|participants|attendees)\b|\bsign in to (join|continue)\b|\borganizer's settings\b|\b(requires?|must) (you to |people to )?(be )?sign(ed)? in\b/i,
    ],
  ] as Array<[DriverFailure | DriverEnd, RegExp]>,
};
