/** What each platform's folder says about its meeting links (`<platform>/url.ts`). */

/** A meeting as its link names it: the platform's own id, and the canonical URL the driver opens. */
export interface MeetingLink {
  nativeId: string;
  joinUrl: string;
}

export interface MeetingLinks {
  /** Whether links on this (lower-case) host are the platform's. */
  serves(host: string): boolean;
  /** The meeting a link on a served host names, or null when it names none. */
  parse(url: URL): MeetingLink | null;
}
