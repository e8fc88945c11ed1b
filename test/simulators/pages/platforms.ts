/** Each platform's pages (class roles, wrapper levels, the choices a seed draws; see html.ts), by platform. */
import type { AudioVariation, SimPlatform } from '../types.js';
import { meetPages } from './meet.js';
import { teamsPages } from './teams.js';
import { zoomPages } from './zoom.js';

export const PAGES = { google_meet: meetPages, teams: teamsPages, zoom: zoomPages } satisfies Record<
  SimPlatform,
  unknown
>;

/** How a seed's page loads mark the bot's own tile (see MEET_CHOICES, TEAMS_CHOICES). */
export function selfTileOf(platform: SimPlatform, seed: number): string {
  return PAGES[platform].choicesOf(seed).selfTile;
}

/** The names of the choices every platform's pages draw per seed (their `choices`). */
export type PageChoice = keyof ReturnType<(typeof PAGES)['google_meet']['choicesOf']> &
  keyof ReturnType<(typeof PAGES)['teams']['choicesOf']> &
  keyof ReturnType<(typeof PAGES)['zoom']['choicesOf']>;

/** What a seed's page loads drew for one choice (e.g. speakingMark: how a speaking tile is marked). */
export function choiceOf(platform: SimPlatform, seed: number, choice: PageChoice): string {
  return PAGES[platform].choicesOf(seed)[choice];
}

/** How a seed's page loads deliver the call's audio (see AudioVariation). */
export function audioOf(platform: SimPlatform, seed: number): AudioVariation {
  const drawn = PAGES[platform].choicesOf(seed);
  return { tracks: drawn.audioTracks, change: drawn.audioChange, elements: drawn.audioElements, idle: drawn.audioIdle };
}
