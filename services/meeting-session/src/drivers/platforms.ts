/**
 * Every platform the bot joins, each one folder (`<platform>/`): its meeting links (url.ts) and
 * its adapter (adapter.ts: the join steps, its page script and selectors, its caption reader).
 * A new platform is a new folder and a line here (and its name in the contracts' Platform).
 */
import type { Platform } from '@notetaker/contracts';
import { googleMeetAdapter } from './google-meet/adapter.js';
import { googleMeetLinks } from './google-meet/url.js';
import type { MeetingLinks } from './meeting-link.js';
import type { PlatformAdapter } from './platform.js';
import { teamsAdapter } from './teams/adapter.js';
import { teamsLinks } from './teams/url.js';
import { zoomAdapter } from './zoom/adapter.js';
import { zoomLinks } from './zoom/url.js';

export interface PlatformModule {
  links: MeetingLinks;
  // Each adapter has its own caption item; the page driver is generic over it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  adapter: PlatformAdapter<any>;
}

export const PLATFORMS: Readonly<Record<Platform, PlatformModule>> = {
  google_meet: { links: googleMeetLinks, adapter: googleMeetAdapter },
  teams: { links: teamsLinks, adapter: teamsAdapter },
  zoom: { links: zoomLinks, adapter: zoomAdapter },
};
